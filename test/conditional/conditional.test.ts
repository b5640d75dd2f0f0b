// Conditional requests (RFC 9110 section 13): ETag on every one-record answer, If-None-Match on the
// two GETs, If-Match on every write of a record (PATCH, DELETE, transitions, uploads, removals).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes } from '../files/fixtures.js';
import { type FilesHarness, startFilesHarness } from '../files/harness.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { fileForm } from '../helpers/multipart.js';
import { insertListing, insertTeardown, readListing, readTeardown } from '../helpers/records.js';
import { createTeardown } from '../helpers/teardowns.js';

let h: FilesHarness;
let seller: Principal;
let admin: Principal;
let stranger: Principal;

beforeAll(async () => {
  h = await startFilesHarness('fs');
  seller = await createSeller(h.t);
  admin = await createPrincipal(h.t, { orgId: seller.orgId, capabilities: ['seller', 'admin'] });
  stranger = await createSeller(h.t);
});
afterAll(async () => {
  await h.close();
});

const STRONG_ETAG = /^"\d+-[0-9a-f]{8}"$/;

type Payload = Record<string, unknown> | { payload: Buffer; headers: Record<string, string> };
function api(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string> = {}, body?: Payload, who = seller) {
  const form = body && 'payload' in body && Buffer.isBuffer(body.payload) ? (body as { payload: Buffer; headers: Record<string, string> }) : undefined;
  return h.t.app.inject({
    method,
    url: `/public/v1${url}`,
    headers: { ...who.headers, ...(form?.headers ?? {}), ...headers },
    ...(form ? { payload: form.payload } : body ? { payload: body } : {}),
  });
}
const etagOf = async (url: string) => {
  const res = await api('GET', url);
  expect(res.statusCode).toBe(200);
  return String(res.headers.etag);
};
const pdf = () => fileForm({ filename: 'report.pdf', contentType: 'application/pdf', data: bytes.pdf() });

describe('ETag', () => {
  it('is strong and opaque, sent on create, GET and PATCH, and the same for the same version', async () => {
    const created = await api('POST', '/teardowns', {}, {
      asset_type: 'engine', status: 'Starting', start_date: '2026-03-01', location: 'Shannon', country: 'IE', engine_model: 'CFM56-5B',
    });
    expect(created.statusCode).toBe(201);
    const etag = String(created.headers.etag);
    expect(etag).toMatch(STRONG_ETAG);
    const id = created.json().teardown_id;
    expect(await etagOf(`/teardowns/${id}`)).toBe(etag);
    const patched = await api('PATCH', `/teardowns/${id}`, {}, { description: 'x' });
    expect(patched.headers.etag).toMatch(STRONG_ETAG);
    expect(patched.headers.etag).not.toBe(etag);
    expect(await etagOf(`/teardowns/${id}`)).toBe(patched.headers.etag);

    const listing = await api('POST', '/sales-lease-exchange', {}, { listing_type: 'engine', title: 'CFM', engine_model: 'CFM56-5B' });
    expect(listing.statusCode).toBe(201);
    expect(listing.headers.etag).toMatch(STRONG_ETAG);
    expect(await etagOf(`/sales-lease-exchange/${listing.json().id}`)).toBe(listing.headers.etag);
  });

  it('differs between two records at the same version', async () => {
    const a = await insertTeardown(h.t, seller);
    const b = await insertTeardown(h.t, seller);
    expect(await etagOf(`/teardowns/${a.id}`)).not.toBe(await etagOf(`/teardowns/${b.id}`));
  });

  it('changes with every kind of change of a teardown', async () => {
    const td = await insertTeardown(h.t, seller);
    const url = `/teardowns/${td.id}`;
    const seen = [await etagOf(url)];
    const changed = async (what: string) => {
      const next = await etagOf(url);
      expect(seen, what).not.toContain(next);
      seen.push(next);
    };
    expect((await api('PATCH', url, {}, { msn: 'MSN-1' })).statusCode).toBe(200);
    await changed('PATCH');
    const moves: [string, Principal, string?][] = [
      ['start_processing', seller],
      ['complete', seller],
      ['unpublish', seller],
      ['submit', seller],
      ['suspend', admin],
      ['approve', admin],
      ['reject', admin, 'checked'],
      ['archive', seller],
      ['restore', seller],
    ];
    for (const [action, who, reason] of moves) {
      const res = await api('POST', `/teardowns/transition/${td.id}`, {}, reason ? { action, reason } : { action }, who);
      expect(res.statusCode, action).toBe(200);
      expect(res.headers.etag, action).toBe(await etagOf(url));
      await changed(action);
    }
    const up = await api('POST', `/teardown/documents/${td.id}`, {}, pdf());
    expect(up.statusCode).toBe(200);
    await changed('document upload');
    const slot = await api('POST', `/teardown/occm/${td.id}`, {}, pdf());
    expect(slot.statusCode).toBe(200);
    await changed('slot upload');
    const img = await api('POST', `/teardown/images/${td.id}`, {}, fileForm({ filename: 'a.png', contentType: 'image/png', data: bytes.png() }));
    expect(img.statusCode).toBe(200);
    await changed('image upload');
    expect((await api('DELETE', `/teardown/documents/${td.id}/by-url?url=${encodeURIComponent(up.json().url)}`)).statusCode).toBe(200);
    await changed('removal by URL');
    expect((await api('DELETE', `/teardown/occm/${td.id}`)).statusCode).toBe(200);
    await changed('slot clear');
    const expiry = await h.t.admin('PATCH', `/admin/v1/teardowns/${td.id}`, { expires_at: '2020-01-01T00:00:00Z' });
    expect(expiry.statusCode).toBe(200);
    expect(expiry.headers.etag).toMatch(STRONG_ETAG);
    expect(expiry.headers.etag).toBe(await etagOf(url));
    await changed('admin expiry');
  });

  it('changes when the auto-archive job archives the teardown', async () => {
    const td = await insertTeardown(h.t, seller, { expires_at: new Date(h.t.clock.now().getTime() - 1000) });
    const before = await etagOf(`/teardowns/${td.id}`);
    expect((await h.t.admin('POST', '/admin/v1/jobs/run')).statusCode).toBe(200);
    expect((await readTeardown(h.t, td.id))?.status).toBe('archived');
    expect(await etagOf(`/teardowns/${td.id}`)).not.toBe(before);
  });

  it('changes with every kind of change of a listing, operator moderation included', async () => {
    const listing = await insertListing(h.t, seller);
    const url = `/sales-lease-exchange/${listing.id}`;
    const seen = [await etagOf(url)];
    const changed = async (what: string) => {
      const next = await etagOf(url);
      expect(seen, what).not.toContain(next);
      seen.push(next);
    };
    expect((await api('PATCH', url, {}, { title: 'New title' })).statusCode).toBe(200);
    await changed('PATCH');
    const up = await api('POST', `/sales-lease-exchange/documents/${listing.id}`, {}, pdf());
    expect(up.statusCode).toBe(200);
    await changed('upload');
    expect((await api('DELETE', `/sales-lease-exchange/documents/${listing.id}/by-url?url=${encodeURIComponent(up.json().url)}`)).statusCode).toBe(200);
    await changed('removal');
    const moderated = await h.t.admin('PATCH', `/admin/v1/listings/${listing.id}`, { status: 'suspended', reason: 'check' });
    expect(moderated.statusCode).toBe(200);
    expect(moderated.headers.etag).toBe(await etagOf(url));
    await changed('moderation');
  });
});

describe('If-None-Match on GET', () => {
  for (const kind of ['teardown', 'listing'] as const) {
    it(`answers 304 with the ETag and no body when it matches (${kind})`, async () => {
      const row = kind === 'teardown' ? await insertTeardown(h.t, seller) : await insertListing(h.t, seller);
      const url = kind === 'teardown' ? `/teardowns/${row.id}` : `/sales-lease-exchange/${row.id}`;
      const etag = await etagOf(url);
      for (const value of [etag, '*', `"nope", ${etag}`, `W/${etag}`]) {
        const res = await api('GET', url, { 'if-none-match': value });
        expect(res.statusCode, value).toBe(304);
        expect(res.headers.etag).toBe(etag);
        expect(res.body).toBe('');
      }
      const other = await api('GET', url, { 'if-none-match': '"1-00000000"' });
      expect(other.statusCode).toBe(200);
      expect(other.headers.etag).toBe(etag);
      expect(other.json()).toMatchObject(kind === 'teardown' ? { teardown_id: row.id } : { id: row.id });
    });
  }

  it('is a 404 on a foreign record whatever the header', async () => {
    const td = await insertTeardown(h.t, seller);
    const res = await api('GET', `/teardowns/${td.id}`, { 'if-none-match': '*' }, undefined, stranger);
    expect(res.statusCode).toBe(404);
  });

  it('refuses a malformed header with 400 invalid_precondition_header', async () => {
    const td = await insertTeardown(h.t, seller);
    for (const value of ['abc', '"unterminated', '*, "a"']) {
      const res = await api('GET', `/teardowns/${td.id}`, { 'if-none-match': value });
      expect(res.statusCode, value).toBe(400);
      expect(res.json().detail.error_code).toBe('invalid_precondition_header');
    }
  });
});

describe('If-Match on writes', () => {
  const STALE = '"1-00000000"';

  async function expect412(res: Awaited<ReturnType<typeof api>>, currentEtag: string) {
    expect(res.statusCode, res.body).toBe(412);
    expect(res.json()).toEqual({ detail: { error_code: 'precondition_failed', message: expect.any(String), current_etag: currentEtag } });
  }

  it('teardown PATCH, transition, DELETE: 412 with current_etag and nothing changes; a match writes', async () => {
    const td = await insertTeardown(h.t, seller, { msn: 'OLD' });
    const url = `/teardowns/${td.id}`;
    const etag = await etagOf(url);
    const auditBefore = (await auditFor(h.t, td.id)).length;
    await expect412(await api('PATCH', url, { 'if-match': STALE }, { msn: 'NEW' }), etag);
    // Stale If-Match answers 412 before the body's stored-row rules (RFC 9110 13.2.1).
    await expect412(await api('PATCH', url, { 'if-match': STALE }, {}), etag);
    await expect412(await api('POST', `/teardowns/transition/${td.id}`, { 'if-match': STALE }, { action: 'start_processing' }), etag);
    await expect412(await api('POST', `/teardowns/transition/${td.id}`, { 'if-match': STALE }, { action: 'submit' }), etag);
    await expect412(await api('DELETE', url, { 'if-match': `W/${etag}` }), etag); // weak tags never match If-Match
    const row = await readTeardown(h.t, td.id);
    expect(row).toMatchObject({ msn: 'OLD', status: 'active_starting' });
    expect(await etagOf(url)).toBe(etag);
    expect((await auditFor(h.t, td.id)).length).toBe(auditBefore);

    const ok = await api('PATCH', url, { 'if-match': `"x", ${etag}` }, { msn: 'NEW' });
    expect(ok.statusCode).toBe(200);
    const moved = await api('POST', `/teardowns/transition/${td.id}`, { 'if-match': String(ok.headers.etag) }, { action: 'start_processing' });
    expect(moved.statusCode).toBe(200);
    expect((await api('DELETE', url, { 'if-match': '*' })).statusCode).toBe(204);
    expect(await readTeardown(h.t, td.id)).toBeUndefined();
  });

  it('an ETag of another record never matches', async () => {
    const a = await insertTeardown(h.t, seller);
    const b = await insertTeardown(h.t, seller);
    const res = await api('PATCH', `/teardowns/${a.id}`, { 'if-match': await etagOf(`/teardowns/${b.id}`) }, { msn: 'X' });
    await expect412(res, await etagOf(`/teardowns/${a.id}`));
  });

  it('listing PATCH and DELETE: 412 with current_etag and nothing changes', async () => {
    const listing = await insertListing(h.t, seller, { title: 'Kept' });
    const url = `/sales-lease-exchange/${listing.id}`;
    const etag = await etagOf(url);
    await expect412(await api('PATCH', url, { 'if-match': STALE }, { title: 'Lost' }), etag);
    await expect412(await api('DELETE', url, { 'if-match': STALE }), etag);
    expect((await readListing(h.t, listing.id))?.title).toBe('Kept');
    const ok = await api('PATCH', url, { 'if-match': etag }, { title: 'New' });
    expect(ok.statusCode).toBe(200);
    expect((await api('DELETE', url, { 'if-match': String(ok.headers.etag) })).statusCode).toBe(204);
  });

  it('uploads, removals and slot clears: 412, nothing stored nor removed', async () => {
    const td = await insertTeardown(h.t, seller);
    const url = `/teardowns/${td.id}`;
    const kept = await api('POST', `/teardown/harvest-list/${td.id}`, {}, pdf());
    expect(kept.statusCode).toBe(200);
    const etag = await etagOf(url);
    const keysBefore = await h.storedKeys(`teardowns/${td.id}/`);
    for (const path of ['documents', 'images', 'occm']) {
      const form = path === 'images' ? fileForm({ filename: 'a.png', contentType: 'image/png', data: bytes.png() }) : pdf();
      await expect412(await api('POST', `/teardown/${path}/${td.id}`, { 'if-match': STALE }, form), etag);
    }
    await expect412(await api('DELETE', `/teardown/documents/${td.id}/by-url?url=${encodeURIComponent(kept.json().url)}`, { 'if-match': STALE }), etag);
    // An absent URL is the usual no-op only for a current ETag.
    await expect412(await api('DELETE', `/teardown/images/${td.id}/by-url?url=${encodeURIComponent('https://x/y.png')}`, { 'if-match': STALE }), etag);
    expect((await api('DELETE', `/teardown/images/${td.id}/by-url?url=${encodeURIComponent('https://x/y.png')}`, { 'if-match': etag })).statusCode).toBe(200);
    await expect412(await api('DELETE', `/teardown/harvest-list/${td.id}`, { 'if-match': STALE }), etag);
    expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual(keysBefore);
    expect((await readTeardown(h.t, td.id))?.harvest_list).toBe(kept.json().url);
    expect(await etagOf(url)).toBe(etag);

    const listing = await insertListing(h.t, seller);
    const lEtag = await etagOf(`/sales-lease-exchange/${listing.id}`);
    await expect412(await api('POST', `/sales-lease-exchange/documents/${listing.id}`, { 'if-match': STALE }, pdf()), lEtag);
    expect(await h.storedKeys(`listings/${listing.id}/`)).toEqual([]);

    // A current ETag writes.
    const ok = await api('DELETE', `/teardown/harvest-list/${td.id}`, { 'if-match': etag });
    expect(ok.statusCode).toBe(200);
    expect((await readTeardown(h.t, td.id))?.harvest_list).toBeNull();
    const up = await api('POST', `/teardown/documents/${td.id}`, { 'if-match': await etagOf(url) }, pdf());
    expect(up.statusCode).toBe(200);
  });

  it('a change while the file streams in: the upload answers 412 and its object is discarded', async () => {
    const td = await insertTeardown(h.t, seller);
    const etag = await etagOf(`/teardowns/${td.id}`);
    const form = pdf();
    const { PassThrough } = await import('node:stream');
    const body = new PassThrough();
    const upload = h.t.app.inject({
      method: 'POST',
      url: `/public/v1/teardown/documents/${td.id}`,
      headers: { ...seller.headers, ...form.headers, 'if-match': etag },
      payload: body,
    });
    body.write(form.payload.subarray(0, form.payload.length - 200));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Another client changes the record while the bytes are still coming.
    expect((await api('PATCH', `/teardowns/${td.id}`, {}, { msn: 'RACED' })).statusCode).toBe(200);
    body.end(form.payload.subarray(form.payload.length - 200));
    const res = await upload;
    await expect412(res, await etagOf(`/teardowns/${td.id}`));
    expect((await readTeardown(h.t, td.id))?.documents).toBeNull();
    expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
  });

  it('a foreign record is the plain 404 whatever the If-Match', async () => {
    const td = await insertTeardown(h.t, seller);
    const listing = await insertListing(h.t, seller);
    const etag = await etagOf(`/teardowns/${td.id}`);
    for (const value of [etag, STALE, '*']) {
      const h1 = { 'if-match': value };
      expect((await api('PATCH', `/teardowns/${td.id}`, h1, { msn: 'X' }, stranger)).json()).toEqual({ detail: 'Teardown not found' });
      expect((await api('POST', `/teardowns/transition/${td.id}`, h1, { action: 'start_processing' }, stranger)).statusCode).toBe(404);
      expect((await api('DELETE', `/teardowns/${td.id}`, h1, undefined, stranger)).statusCode).toBe(404);
      expect((await api('POST', `/teardown/documents/${td.id}`, h1, pdf(), stranger)).statusCode).toBe(404);
      expect((await api('DELETE', `/teardown/occm/${td.id}`, h1, undefined, stranger)).statusCode).toBe(404);
      expect((await api('PATCH', `/sales-lease-exchange/${listing.id}`, h1, { title: 'X' }, stranger)).json()).toEqual({ detail: 'Listing not found' });
      expect((await api('DELETE', `/sales-lease-exchange/${listing.id}`, h1, undefined, stranger)).statusCode).toBe(404);
    }
    expect(await etagOf(`/teardowns/${td.id}`)).toBe(etag);
  });

  it('refuses a malformed If-Match with 400 invalid_precondition_header and writes nothing', async () => {
    const td = await insertTeardown(h.t, seller, { msn: 'OLD' });
    for (const value of ['abc', '', 'W/', '"a" "b"']) {
      const res = await api('PATCH', `/teardowns/${td.id}`, { 'if-match': value }, { msn: 'NEW' });
      expect(res.statusCode, value).toBe(400);
      expect(res.json().detail).toMatchObject({ error_code: 'invalid_precondition_header', header: 'If-Match' });
    }
    expect((await readTeardown(h.t, td.id))?.msn).toBe('OLD');
  });

  it('without If-Match a write is unconditional, as before', async () => {
    const td = await createTeardown(h.t, seller);
    expect((await api('PATCH', `/teardowns/${td.teardown_id}`, {}, { msn: 'A' })).statusCode).toBe(200);
    expect((await api('PATCH', `/teardowns/${td.teardown_id}`, {}, { msn: 'B' })).statusCode).toBe(200);
  });
});

describe('a real race', () => {
  for (const kind of ['teardown', 'listing'] as const) {
    it(`20 concurrent PATCHes with the same If-Match: exactly one 200, nineteen 412 (${kind})`, async () => {
      const row = kind === 'teardown' ? await insertTeardown(h.t, seller) : await insertListing(h.t, seller);
      const url = kind === 'teardown' ? `/teardowns/${row.id}` : `/sales-lease-exchange/${row.id}`;
      const etag = await etagOf(url);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api('PATCH', url, { 'if-match': etag }, kind === 'teardown' ? { msn: `MSN-${i}` } : { title: `Title ${i}` }),
        ),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).toEqual([200, ...Array(19).fill(412)]);
      const winner = results.find((r) => r.statusCode === 200);
      const current = await etagOf(url);
      expect(winner?.headers.etag).toBe(current);
      for (const loser of results.filter((r) => r.statusCode === 412)) expect(loser.json().detail.current_etag).toBe(current);
      const stored = kind === 'teardown' ? (await readTeardown(h.t, row.id))?.msn : (await readListing(h.t, row.id))?.title;
      expect(stored).toBe(kind === 'teardown' ? winner?.json().msn : winner?.json().title);
      const updates = (await auditFor(h.t, row.id)).filter((a) => a.action.endsWith('.updated'));
      expect(updates).toHaveLength(1);
    });
  }
});

describe('conditional requests in the OpenAPI document', () => {
  it('declares ETag, If-Match / If-None-Match, 304 and 412 on the operations concerned', async () => {
    const doc = (await h.t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
    type Op = { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> };
    const op = (path: string, method: string): Op => doc.paths[`/public/v1${path}`][method];
    const headerParams = (o: Op) => (o.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
    for (const path of ['/teardowns/{teardown_id}', '/sales-lease-exchange/{listing_id}']) {
      expect(headerParams(op(path, 'get'))).toContain('if-none-match');
      expect(op(path, 'get').responses['200']?.headers).toHaveProperty('ETag');
      expect(op(path, 'get').responses).toHaveProperty('304');
      for (const method of ['patch', 'delete']) {
        expect(headerParams(op(path, method))).toContain('if-match');
        expect(op(path, method).responses).toHaveProperty('412');
      }
      expect(op(path, 'patch').responses['200']?.headers).toHaveProperty('ETag');
    }
    for (const [path, method] of [
      ['/teardowns/transition/{teardown_id}', 'post'],
      ['/teardown/documents/{teardown_id}', 'post'],
      ['/teardown/occm/{teardown_id}', 'post'],
      ['/teardown/occm/{teardown_id}', 'delete'],
      ['/sales-lease-exchange/images/{listing_id}/by-url', 'delete'],
    ] as const) {
      expect(headerParams(op(path, method)), path).toContain('if-match');
      expect(op(path, method).responses, path).toHaveProperty('412');
    }
    expect(op('/teardowns', 'post').responses['201']?.headers).toHaveProperty('ETag');
  });
});
