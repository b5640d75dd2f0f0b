// Upload rules, run once per store (uploads-fs.test.ts, uploads-s3.test.ts): the result shape, where
// files land, audience, content types, sizes, file names, concurrency, and that a refused upload
// stores nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFor, createSeller, type Principal } from '../helpers/factories.js';
import { type FormEntry, fileForm, multipart } from '../helpers/multipart.js';
import { insertListing, insertTeardown, readListing, readTeardown } from '../helpers/records.js';
import { bytes } from './fixtures.js';
import { type FilesHarness, postOverHttp, type StoreKind, startFilesHarness } from './harness.js';

/** Small enough to cross in a test, large enough for every fixture. */
export const LIMIT = 64 * 1024;

export function describeUploads(kind: StoreKind) {
  let h: FilesHarness;
  let seller: Principal;

  beforeAll(async () => {
    h = await startFilesHarness(kind, { MAX_UPLOAD_BYTES: String(LIMIT) });
    seller = await createSeller(h.t);
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, form: { payload: Buffer; headers: Record<string, string> }, principal = seller) =>
    h.t.app.inject({
      method: 'POST',
      url: `/public/v1/${path}`,
      headers: { ...principal.headers, ...form.headers },
      payload: form.payload,
    });
  const pdfForm = (audience?: string) => fileForm({ filename: 'report.pdf', contentType: 'application/pdf', data: bytes.pdf() }, audience);

  describe(`uploads (${kind} store)`, () => {
    it('stores a teardown document, appends its URL and answers the upload result', async () => {
      const td = await insertTeardown(h.t, seller);
      const data = bytes.pdf(3000);
      const res = await post(`teardown/documents/${td.id}`, fileForm({ filename: 'report.pdf', contentType: 'application/pdf', data }));
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({ url: expect.any(String), filename: 'report.pdf', size: 3000, content_type: 'application/pdf' });
      expect(body.url).toMatch(new RegExp(`^${escapeRegExp(h.mediaBase)}teardowns/${td.id}/documents/[0-9a-f]{8}_report\\.pdf$`));
      expect((await readTeardown(h.t, td.id))?.documents).toEqual([body.url]);
      expect(await h.readObject(h.keyOf(body.url))).toEqual(data);
    });

    it('audits a teardown document upload with filename, size, url and content type', async () => {
      const td = await insertTeardown(h.t, seller);
      const { url } = (await post(`teardown/documents/${td.id}`, pdfForm())).json();
      const rows = await auditFor(h.t, td.id);
      expect(rows.map((r) => r.action)).toEqual(['teardown.document.uploaded']);
      expect(rows[0]?.metadata).toMatchObject({
        filename: 'report.pdf',
        size: 2000,
        url,
        content_type: 'application/pdf',
        via_api: true,
        api_key_id: seller.keyId,
      });
    });

    it('serves the stored file at its URL with its type', async () => {
      const td = await insertTeardown(h.t, seller);
      const data = bytes.pdf(2500);
      const { url } = (
        await post(`teardown/documents/${td.id}`, fileForm({ filename: 'Motor Überprüfung.pdf', contentType: 'application/pdf', data }))
      ).json();
      const res = await h.fetchUrl(url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toContain("filename*=UTF-8''Motor%20%C3%9Cberpr%C3%BCfung.pdf");
      expect(res.body).toEqual(data);
    });

    it('stores a teardown image, appends it to images[] and ignores an audience field', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(
        `teardown/images/${td.id}`,
        fileForm({ filename: 'engine.png', contentType: 'image/png', data: bytes.png() }, 'Airline'),
      );
      expect(res.statusCode).toBe(200);
      const { url, content_type } = res.json();
      expect(content_type).toBe('image/png');
      expect(url).toContain(`/teardowns/${td.id}/images/`);
      const row = await readTeardown(h.t, td.id);
      expect(row).toMatchObject({ images: [url], documents: null, audience: null, audience_set_at: null });
      expect((await auditFor(h.t, td.id)).map((r) => r.action)).toEqual(['teardown.image.uploaded']);
    });

    it('stores listing documents and images under listings/<id>/', async () => {
      const listing = await insertListing(h.t, seller);
      const doc = (await post(`sales-lease-exchange/documents/${listing.id}`, pdfForm())).json();
      const img = (
        await post(
          `sales-lease-exchange/images/${listing.id}`,
          fileForm({ filename: 'cabin.jpg', contentType: 'image/jpeg', data: bytes.jpeg() }),
        )
      ).json();
      expect(doc.url).toContain(`/listings/${listing.id}/documents/`);
      expect(img).toMatchObject({ filename: 'cabin.jpg', content_type: 'image/jpeg' });
      expect(await readListing(h.t, listing.id)).toMatchObject({ documents: [doc.url], images: [img.url] });
      expect((await auditFor(h.t, listing.id)).map((r) => r.action).sort()).toEqual([
        'listing.document.uploaded',
        'listing.image.uploaded',
      ]);
    });

    it.each([
      ['harvest-list', 'harvest_list'],
      ['occm', 'occm'],
      ['aircraft-details', 'aircraft_details_doc'],
      ['non-incident-statement', 'non_incident_statement'],
    ] as const)('fills the %s slot, appends to documents[] and audits teardown.%s.uploaded', async (docType, field) => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(`teardown/${docType}/${td.id}`, pdfForm());
      expect(res.statusCode).toBe(200);
      const { url } = res.json();
      expect(url).toMatch(new RegExp(`/teardowns/${td.id}/${docType}/[0-9a-f]{8}_report\\.pdf$`));
      const row = await readTeardown(h.t, td.id);
      expect(row?.[field]).toBe(url);
      expect(row?.documents).toEqual([url]);
      const rows = await auditFor(h.t, td.id);
      expect(rows.map((r) => r.action)).toEqual([`teardown.${field}.uploaded`]);
      expect(rows[0]?.metadata).toMatchObject({ filename: 'report.pdf', size: 2000, url });
    });

    it('replacing a slot keeps the previous URL in documents[] and its file in storage', async () => {
      const td = await insertTeardown(h.t, seller);
      const first = (await post(`teardown/occm/${td.id}`, pdfForm())).json();
      const second = (await post(`teardown/occm/${td.id}`, pdfForm())).json();
      expect(second.url).not.toBe(first.url);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ occm: second.url, documents: [first.url, second.url] });
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([h.keyOf(first.url), h.keyOf(second.url)].sort());
    });
  });

  describe(`audience on upload (${kind} store)`, () => {
    it('applies a first audience, canonicalised, and audits teardown.audience.set', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(`teardown/documents/${td.id}`, pdfForm('airline, mro,AIRLINE'));
      expect(res.statusCode).toBe(200);
      const row = await readTeardown(h.t, td.id);
      expect(row?.audience).toEqual(['Airline', 'MRO']);
      expect(row?.audience_set_at?.getTime()).toBe(h.t.clock.now().getTime());
      const audience = (await auditFor(h.t, td.id)).find((r) => r.action === 'teardown.audience.set');
      expect(audience).toMatchObject({ previous_state: { audience: null }, new_state: { audience: ['Airline', 'MRO'] } });
    });

    it('audits a later different audience as teardown.audience.changed', async () => {
      const td = await insertTeardown(h.t, seller, { audience: ['Airline'], audience_set_at: new Date('2026-01-01T00:00:00Z') });
      await post(`teardown/harvest-list/${td.id}`, pdfForm('Lessor'));
      const row = await readTeardown(h.t, td.id);
      expect(row?.audience).toEqual(['Lessor']);
      expect(row?.audience_set_at?.getTime()).toBe(h.t.clock.now().getTime());
      expect((await auditFor(h.t, td.id)).map((r) => r.action).sort()).toEqual([
        'teardown.audience.changed',
        'teardown.harvest_list.uploaded',
      ]);
    });

    it('sending the audience the record already has writes no audience row and keeps audience_set_at', async () => {
      const setAt = new Date('2026-01-01T00:00:00Z');
      const td = await insertTeardown(h.t, seller, { audience: ['Airline', 'MRO'], audience_set_at: setAt });
      expect((await post(`teardown/documents/${td.id}`, pdfForm('Airline,MRO'))).statusCode).toBe(200);
      expect((await readTeardown(h.t, td.id))?.audience_set_at?.getTime()).toBe(setAt.getTime());
      expect((await auditFor(h.t, td.id)).map((r) => r.action)).toEqual(['teardown.document.uploaded']);
    });

    it('applies an audience on a listing document upload and audits listing.audience.set', async () => {
      const listing = await insertListing(h.t, seller);
      expect((await post(`sales-lease-exchange/documents/${listing.id}`, pdfForm('OEM'))).statusCode).toBe(200);
      expect((await readListing(h.t, listing.id))?.audience).toEqual(['OEM']);
      expect((await auditFor(h.t, listing.id)).map((r) => r.action).sort()).toEqual(['listing.audience.set', 'listing.document.uploaded']);
    });

    it('treats an empty audience field as not sent', async () => {
      const td = await insertTeardown(h.t, seller, { audience: ['OEM'] });
      expect((await post(`teardown/documents/${td.id}`, pdfForm(' '))).statusCode).toBe(200);
      expect((await readTeardown(h.t, td.id))?.audience).toEqual(['OEM']);
    });

    it('refuses an invalid audience sent before the file with 422 invalid_audience and stores nothing', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(`teardown/documents/${td.id}`, pdfForm('Airline, Pilots'));
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        detail: {
          error_code: 'invalid_audience',
          message: expect.any(String),
          got: ['Pilots'],
          allowed: ['Airline', 'Lessor', 'OEM', 'MRO', 'Distributor', 'Others'],
        },
      });
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ documents: null, audience: null });
      expect(await auditFor(h.t, td.id)).toEqual([]);
    });

    it('refuses an invalid audience sent after the file and deletes what was stored', async () => {
      const td = await insertTeardown(h.t, seller);
      const form = multipart([
        { name: 'file', filename: 'report.pdf', contentType: 'application/pdf', data: bytes.pdf() },
        { name: 'audience', value: 'Nobody' },
      ]);
      const res = await post(`teardown/occm/${td.id}`, form);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toMatchObject({ error_code: 'invalid_audience', got: ['Nobody'] });
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ documents: null, occm: null });
    });
  });

  describe(`the record answers first (${kind} store)`, () => {
    // Forms refused for what they carry. The record is looked up with the file's outbox row, once
    // the part's type is known; these fail before that, and must still answer the record's 404/412.
    const refusedForms: [string, () => { payload: Buffer; headers: Record<string, string> }][] = [
      ['a form without its file part', () => multipart([{ name: 'audience', value: 'Airline' }])],
      ['an invalid audience before the file', () => pdfForm('Pilots')],
      ['an empty file', () => multipart([{ name: 'file', filename: 'e.pdf', contentType: 'application/pdf', data: Buffer.alloc(0) }])],
      [
        'a file whose bytes are not its type',
        () => multipart([{ name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: bytes.png() }]),
      ],
      [
        'a malformed multipart body',
        () => ({ payload: Buffer.from('--x\r\nnot a part header\r\n'), headers: { 'content-type': 'multipart/form-data; boundary=x' } }),
      ],
    ];

    it.each(refusedForms)("%s to another organization's teardown: its plain 404, nothing stored", async (_name, form) => {
      const td = await insertTeardown(h.t, await createSeller(h.t));
      const res = await post(`teardown/documents/${td.id}`, form());
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({ detail: 'Teardown not found' });
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
    });

    it.each(refusedForms)('%s with a stale If-Match: 412, nothing stored', async (_name, form) => {
      const td = await insertTeardown(h.t, seller);
      const f = form();
      const res = await post(`teardown/documents/${td.id}`, { ...f, headers: { ...f.headers, 'if-match': '"1-00000000"' } });
      expect(res.statusCode, res.body).toBe(412);
      expect(res.json().detail.error_code).toBe('precondition_failed');
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
    });
  });

  describe(`refused uploads (${kind} store)`, () => {
    /** Posts `form` to a fresh teardown's `path` and checks that nothing was stored or written. */
    async function refused(path: 'documents' | 'images' | 'occm', form: { payload: Buffer; headers: Record<string, string> }) {
      const td = await insertTeardown(h.t, seller);
      const res = await post(`teardown/${path}/${td.id}`, form);
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ documents: null, images: null, occm: null });
      expect(await auditFor(h.t, td.id)).toEqual([]);
      return res;
    }
    const file = (filename: string, contentType: string | null, data: Buffer | string): FormEntry => ({
      name: 'file',
      filename,
      contentType,
      data,
    });

    it('answers a form without its file part with the schema item at ["body", "file"]', async () => {
      const res = await refused('documents', multipart([{ name: 'audience', value: 'Airline' }]));
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }] });
    });

    it('answers a file sent under another field name as a missing file', async () => {
      const res = await refused('documents', multipart([{ ...file('report.pdf', 'application/pdf', bytes.pdf()), name: 'document' }]));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'file'] });
    });

    it('answers a JSON body with the same missing-file item (not multipart)', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await h.t.app.inject({
        method: 'POST',
        url: `/public/v1/teardown/documents/${td.id}`,
        headers: seller.headers,
        payload: { file: 'x' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }] });
    });

    it('refuses a second file part with a plain-string 400 and keeps neither', async () => {
      const pdf = file('a.pdf', 'application/pdf', bytes.pdf());
      const res = await refused('documents', multipart([pdf, { ...pdf, filename: 'b.pdf' }]));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: 'Send one file per call.' });
    });

    it('refuses an empty file with a plain-string 400', async () => {
      const res = await refused('documents', multipart([file('empty.pdf', 'application/pdf', Buffer.alloc(0))]));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: 'The file is empty.' });
    });

    it('refuses a non-image on an image endpoint with a plain-string 400', async () => {
      const res = await refused('images', multipart([file('report.pdf', 'application/pdf', bytes.pdf())]));
      expect(res.statusCode).toBe(400);
      expect(typeof res.json().detail).toBe('string');
      expect(res.json().detail).toContain("'application/pdf'");
    });

    it.each([
      ['image/svg+xml', 'drawing.svg', bytes.svg()],
      ['image/bmp', 'scan.bmp', bytes.bmp()],
      ['image/tiff', 'scan.tiff', bytes.tiff()],
    ])('refuses %s on an image endpoint with invalid_content_type', async (type, name, data) => {
      const res = await refused('images', multipart([file(name, type, data)]));
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatchObject({
        error_code: 'invalid_content_type',
        got: type,
        allowed: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
      });
    });

    it.each([
      ['text/html', 'page.html', '<html></html>'],
      ['application/zip', 'bundle.zip', bytes.zip()],
      ['application/octet-stream', 'tool.exe', bytes.exe()],
      ['application/octet-stream', 'no-extension', bytes.pdf()],
    ])('refuses a document declared %s (%s) with invalid_content_type', async (type, name, data) => {
      const res = await refused('documents', multipart([file(name, type, data)]));
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatchObject({ error_code: 'invalid_content_type' });
    });

    it.each([
      ['image/png', 'photo.png', bytes.pdf(), 'documents'],
      ['application/octet-stream', 'manual.pdf', bytes.exe(), 'documents'],
      ['application/octet-stream', 'manual.pdf', bytes.zip(), 'occm'],
      ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'parts.xlsx', bytes.cfb(), 'documents'],
      ['application/msword', 'letter.doc', bytes.zip(), 'documents'],
      ['image/jpeg', 'photo.jpg', bytes.png(), 'images'],
      ['text/csv', 'parts.csv', bytes.pdf(), 'documents'],
    ] as const)('refuses bytes that contradict the declared type (%s %s) with invalid_content_type', async (type, name, data, path) => {
      const res = await refused(path, multipart([file(name, type, data)]));
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatchObject({ error_code: 'invalid_content_type', got: expect.any(String), detected: expect.anything() });
    });

    it('refuses a CSV with a NUL byte past the sniffed head, after streaming began', async () => {
      const data = bytes.csv(20_000);
      data[15_000] = 0;
      const res = await refused('documents', multipart([file('parts.csv', 'text/csv', data)]));
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatchObject({ error_code: 'invalid_content_type', got: 'text/csv' });
    });

    it('refuses a file over MAX_UPLOAD_BYTES with file_too_large and keeps nothing of it', async () => {
      const res = await refused('documents', multipart([file('big.pdf', 'application/pdf', bytes.pdf(LIMIT + 1))]));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: { error_code: 'file_too_large', message: expect.any(String), limit: LIMIT } });
    });

    it('refuses an over-limit file streamed over a socket, deleting what was written of it', async () => {
      const td = await insertTeardown(h.t, seller);
      const form = multipart([file('big.pdf', 'application/pdf', bytes.pdf(3 * LIMIT))]);
      const res = await postOverHttp(h.t.app, `/public/v1/teardown/documents/${td.id}`, seller.headers, form, 8 * 1024);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatchObject({ error_code: 'file_too_large', limit: LIMIT });
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
      expect((await readTeardown(h.t, td.id))?.documents).toBeNull();
    });

    it('refuses a malformed multipart body with a plain-string 400', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await h.t.app.inject({
        method: 'POST',
        url: `/public/v1/teardown/documents/${td.id}`,
        headers: { ...seller.headers, 'content-type': 'multipart/form-data; boundary=abc' },
        payload: '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 truncated',
      });
      expect(res.statusCode).toBe(400);
      expect(typeof res.json().detail).toBe('string');
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
    });

    it('deletes the stored object when the database write fails after it', async () => {
      // A trigger stands in for a database failure between the store and the record update.
      await sql`CREATE OR REPLACE FUNCTION refuse_file_writes() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.description = 'refuse file writes' THEN RAISE EXCEPTION 'simulated failure'; END IF; RETURN NEW; END $$`.execute(
        h.t.database.db,
      );
      await sql`CREATE TRIGGER refuse_file_writes BEFORE UPDATE ON teardowns FOR EACH ROW EXECUTE FUNCTION refuse_file_writes()`.execute(
        h.t.database.db,
      );
      try {
        const td = await insertTeardown(h.t, seller, { description: 'refuse file writes' });
        const res = await post(`teardown/documents/${td.id}`, pdfForm());
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({ detail: 'Internal Server Error' });
        expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
      } finally {
        await sql`DROP TRIGGER refuse_file_writes ON teardowns`.execute(h.t.database.db);
      }
    });
  });

  describe(`accepted types and sizes (${kind} store)`, () => {
    it.each([
      ['application/octet-stream', 'manual.pdf', 'application/pdf', bytes.pdf()],
      [null, 'photo.JPG', 'image/jpeg', bytes.jpeg()],
      ['image/jpg', 'photo.jpeg', 'image/jpeg', bytes.jpeg()],
      [
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'parts.xlsx',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        bytes.zip(),
      ],
      ['application/octet-stream', 'spec.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes.zip()],
      ['application/vnd.ms-excel', 'legacy.xls', 'application/vnd.ms-excel', bytes.cfb()],
      ['application/msword', 'letter.doc', 'application/msword', bytes.cfb()],
      ['text/csv', 'parts.csv', 'text/csv', bytes.csv()],
      ['application/vnd.ms-excel', 'export.csv', 'text/csv', bytes.csv()],
      ['image/webp', 'a.webp', 'image/webp', bytes.webp()],
      ['image/gif', 'a.gif', 'image/gif', bytes.gif()],
    ])('accepts a document declared %s named %s as %s', async (declared, name, expected, data) => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(`teardown/documents/${td.id}`, multipart([{ name: 'file', filename: name, contentType: declared, data }]));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ content_type: expected, size: data.length });
    });

    it('accepts a file of exactly MAX_UPLOAD_BYTES', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(
        `teardown/documents/${td.id}`,
        fileForm({ filename: 'full.pdf', contentType: 'application/pdf', data: bytes.pdf(LIMIT) }),
      );
      expect(res.statusCode).toBe(200);
      expect(res.json().size).toBe(LIMIT);
      expect((await h.readObject(h.keyOf(res.json().url)))?.length).toBe(LIMIT);
    });
  });

  describe(`file names (${kind} store)`, () => {
    it.each([
      ['../../etc/passwd.pdf', 'passwd.pdf'],
      ['..\\..\\windows\\system.pdf', 'system.pdf'],
      ['C:\\Users\\me\\Desktop\\report.pdf', 'report.pdf'],
      ['a\u0000b\u0007c.pdf', 'abc.pdf'],
      ['evil\u202Efdp.exe.pdf', 'evilfdp.exe.pdf'],
      ['..pdf', 'file.pdf'],
      ['....', 'file'],
      ['.htaccess', 'file.htaccess'],
      ['Überprüfung Triebwerk №2.pdf', 'Überprüfung Triebwerk _2.pdf'],
      ['報告書 (最終).pdf', '報告書 (最終).pdf'],
      ['a<b>c:d|e?f*g.pdf', 'a_b_c_d_e_f_g.pdf'],
      ['a%2F..%2Fb.pdf', 'a_2F._2Fb.pdf'],
      // Exactly 150 bytes stays whole; past them, a base letter and its combining accent stay together.
      [`${'a'.repeat(146)}.pdf`, `${'a'.repeat(146)}.pdf`],
      [`${'x\u0301'.repeat(60)}.pdf`, `${'x\u0301'.repeat(48)}.pdf`],
    ])('stores %j under the record prefix as %j', async (raw, expected) => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(`teardown/documents/${td.id}`, fileForm({ filename: raw, contentType: 'application/pdf', data: bytes.pdf() }));
      expect(res.statusCode).toBe(200);
      const { url, filename } = res.json();
      expect(filename).toBe(expected);
      const key = h.keyOf(url);
      expect(key).toMatch(new RegExp(`^teardowns/${td.id}/documents/[0-9a-f]{8}_`));
      expect(key.slice(key.lastIndexOf('/') + 10)).toBe(expected);
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([key]);
      // The URL's name segment is percent-encoded once: decoding it gives the stored key back.
      expect(url.slice(h.mediaBase.length).split('/')).toHaveLength(4);
    });

    it('caps a 1,000-character name at 150 bytes and keeps its extension', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(
        `teardown/documents/${td.id}`,
        fileForm({ filename: `${'é'.repeat(1000)}.pdf`, contentType: 'application/pdf', data: bytes.pdf() }),
      );
      expect(res.statusCode).toBe(200);
      const { filename, url } = res.json();
      expect(Buffer.byteLength(filename)).toBeLessThanOrEqual(150);
      expect(filename).toMatch(/^é+\.pdf$/);
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([h.keyOf(url)]);
    });

    it('names a file sent with an empty filename "file"', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(
        `teardown/documents/${td.id}`,
        multipart([{ name: 'file', filename: '', contentType: 'application/pdf', data: bytes.pdf() }]),
      );
      expect(res.statusCode).toBe(200);
      expect(res.json().filename).toBe('file');
    });

    it('takes a part without a filename for a text field, so the file is missing', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await post(
        `teardown/documents/${td.id}`,
        multipart([{ name: 'file', contentType: 'application/pdf', data: bytes.pdf() }]),
      );
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'file'] });
    });
  });

  describe(`concurrency (${kind} store)`, () => {
    it('keeps every URL of 20 concurrent uploads to one record', async () => {
      const td = await insertTeardown(h.t, seller);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(`teardown/documents/${td.id}`, fileForm({ filename: `doc-${i}.pdf`, contentType: 'application/pdf', data: bytes.pdf() })),
        ),
      );
      expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      const urls = responses.map((r) => r.json().url as string);
      expect(new Set(urls).size).toBe(20);
      expect([...((await readTeardown(h.t, td.id))?.documents ?? [])].sort()).toEqual([...urls].sort());
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toHaveLength(20);
      expect((await auditFor(h.t, td.id)).filter((r) => r.action === 'teardown.document.uploaded')).toHaveLength(20);
    });
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
