// Removal rules and the access rules of every file endpoint, run once per store
// (removals-fs.test.ts, removals-s3.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { fileForm } from '../helpers/multipart.js';
import { insertListing, insertTeardown, readListing, readTeardown } from '../helpers/records.js';
import { bytes } from './fixtures.js';
import { type FilesHarness, type StoreKind, startFilesHarness } from './harness.js';

export function describeRemovals(kind: StoreKind) {
  let h: FilesHarness;
  let seller: Principal;

  beforeAll(async () => {
    h = await startFilesHarness(kind);
    seller = await createSeller(h.t);
  });
  afterAll(async () => {
    await h.close();
  });

  const pdf = () => fileForm({ filename: 'report.pdf', contentType: 'application/pdf', data: bytes.pdf() });
  const png = () => fileForm({ filename: 'photo.png', contentType: 'image/png', data: bytes.png() });
  async function uploaded(path: string, form = pdf()): Promise<string> {
    const res = await h.t.app.inject({
      method: 'POST',
      url: `/public/v1/${path}`,
      headers: { ...seller.headers, ...form.headers },
      payload: form.payload,
    });
    if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
    return res.json().url;
  }
  const removeByUrl = (path: string, url: string, principal = seller) =>
    h.t.app.inject({ method: 'DELETE', url: `/public/v1/${path}/by-url?url=${encodeURIComponent(url)}`, headers: principal.headers });
  const stored = async (url: string) => (await h.readObject(h.keyOf(url))) !== undefined;

  describe(`remove by URL (${kind} store)`, () => {
    it('removes a teardown document from documents[], deletes its file and audits teardown.document.removed', async () => {
      const td = await insertTeardown(h.t, seller);
      const keep = await uploaded(`teardown/documents/${td.id}`);
      const url = await uploaded(`teardown/documents/${td.id}`);
      const res = await removeByUrl(`teardown/documents/${td.id}`, url);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await readTeardown(h.t, td.id))?.documents).toEqual([keep]);
      expect(await stored(url)).toBe(false);
      expect(await stored(keep)).toBe(true);
      const [latest] = await auditFor(h.t, td.id);
      expect(latest).toMatchObject({ action: 'teardown.document.removed', metadata: { url, via_api: true } });
    });

    it('answers an absent URL with 200 ok and writes nothing', async () => {
      const td = await insertTeardown(h.t, seller);
      const url = await uploaded(`teardown/documents/${td.id}`);
      expect((await removeByUrl(`teardown/documents/${td.id}`, url)).statusCode).toBe(200);
      const before = await readTeardown(h.t, td.id);
      const auditCount = (await auditFor(h.t, td.id)).length;
      h.t.clock.advance(60_000);
      const again = await removeByUrl(`teardown/documents/${td.id}`, url);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ status: 'ok' });
      expect((await readTeardown(h.t, td.id))?.updated_at).toEqual(before?.updated_at);
      expect(await auditFor(h.t, td.id)).toHaveLength(auditCount);
    });

    it('clears a slot holding the removed document, with its teardown.<slot>.removed row', async () => {
      const td = await insertTeardown(h.t, seller);
      const url = await uploaded(`teardown/non-incident-statement/${td.id}`);
      expect((await removeByUrl(`teardown/documents/${td.id}`, url)).statusCode).toBe(200);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ documents: [], non_incident_statement: null });
      expect(await stored(url)).toBe(false);
      const actions = (await auditFor(h.t, td.id)).map((r) => r.action);
      expect(actions.slice(0, 2).sort()).toEqual(['teardown.document.removed', 'teardown.non_incident_statement.removed']);
    });

    it('removes a teardown image and deletes its file', async () => {
      const td = await insertTeardown(h.t, seller);
      const url = await uploaded(`teardown/images/${td.id}`, png());
      expect((await removeByUrl(`teardown/images/${td.id}`, url)).statusCode).toBe(200);
      expect((await readTeardown(h.t, td.id))?.images).toEqual([]);
      expect(await stored(url)).toBe(false);
      expect((await auditFor(h.t, td.id))[0]?.action).toBe('teardown.image.removed');
    });

    it('removes listing documents and images and audits listing.document.removed / listing.image.removed', async () => {
      const listing = await insertListing(h.t, seller);
      const doc = await uploaded(`sales-lease-exchange/documents/${listing.id}`);
      const img = await uploaded(`sales-lease-exchange/images/${listing.id}`, png());
      expect((await removeByUrl(`sales-lease-exchange/documents/${listing.id}`, doc)).statusCode).toBe(200);
      expect((await removeByUrl(`sales-lease-exchange/images/${listing.id}`, img)).statusCode).toBe(200);
      expect(await readListing(h.t, listing.id)).toMatchObject({ documents: [], images: [] });
      expect(await stored(doc)).toBe(false);
      expect(await stored(img)).toBe(false);
      const actions = (await auditFor(h.t, listing.id)).map((r) => r.action);
      expect(actions.slice(0, 2)).toEqual(['listing.image.removed', 'listing.document.removed']);
    });

    it('does not look for a document URL in images[]', async () => {
      const td = await insertTeardown(h.t, seller);
      const url = await uploaded(`teardown/images/${td.id}`, png());
      expect((await removeByUrl(`teardown/documents/${td.id}`, url)).statusCode).toBe(200);
      expect((await readTeardown(h.t, td.id))?.images).toEqual([url]);
      expect(await stored(url)).toBe(true);
    });

    it('keeps the file of a URL the record still references elsewhere', async () => {
      const td = await insertTeardown(h.t, seller);
      const url = await uploaded(`teardown/documents/${td.id}`);
      await h.t.database.db
        .updateTable('teardowns')
        .set({ images: [url] })
        .where('id', '=', td.id)
        .execute();
      expect((await removeByUrl(`teardown/documents/${td.id}`, url)).statusCode).toBe(200);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ documents: [], images: [url] });
      expect(await stored(url)).toBe(true);
    });
  });

  describe(`ownership guard (${kind} store)`, () => {
    it("removes another record's URL written by PATCH from the record but never deletes that file", async () => {
      const victim = await insertTeardown(h.t, seller);
      const victimUrl = await uploaded(`teardown/documents/${victim.id}`);
      const other = await insertListing(h.t, seller);
      const listingUrl = await uploaded(`sales-lease-exchange/documents/${other.id}`);
      const outside = 'https://elsewhere.example.com/media/teardowns/x/documents/abcd1234_a.pdf';
      // What a PATCH of documents[] can write: any absolute URL.
      const td = await insertTeardown(h.t, seller, { documents: [victimUrl, listingUrl, outside] });
      for (const url of [victimUrl, listingUrl, outside]) {
        expect((await removeByUrl(`teardown/documents/${td.id}`, url)).statusCode).toBe(200);
      }
      expect((await readTeardown(h.t, td.id))?.documents).toEqual([]);
      expect(await stored(victimUrl)).toBe(true);
      expect(await stored(listingUrl)).toBe(true);
      expect((await auditFor(h.t, td.id)).map((r) => r.action)).toEqual(Array(3).fill('teardown.document.removed'));
    });

    it('never deletes a file whose URL climbs out of the record prefix with ..', async () => {
      const victim = await insertTeardown(h.t, seller);
      const victimUrl = await uploaded(`teardown/documents/${victim.id}`);
      const td = await insertTeardown(h.t, seller);
      const climbing = `${h.mediaBase}teardowns/${td.id}/documents/..%2F..%2F${victim.id}%2Fdocuments%2F${encodeURIComponent(victimUrl.split('/').pop() ?? '')}`;
      await h.t.database.db
        .updateTable('teardowns')
        .set({ documents: [climbing] })
        .where('id', '=', td.id)
        .execute();
      expect((await removeByUrl(`teardown/documents/${td.id}`, climbing)).statusCode).toBe(200);
      expect(await stored(victimUrl)).toBe(true);
    });
  });

  describe(`slot removal (${kind} store)`, () => {
    it.each([
      ['harvest-list', 'harvest_list'],
      ['occm', 'occm'],
      ['aircraft-details', 'aircraft_details_doc'],
      ['non-incident-statement', 'non_incident_statement'],
    ] as const)('DELETE /teardown/%s clears %s, removes its URL from documents[] and deletes the file', async (docType, field) => {
      const td = await insertTeardown(h.t, seller);
      const other = await uploaded(`teardown/documents/${td.id}`);
      const url = await uploaded(`teardown/${docType}/${td.id}`);
      const res = await h.t.app.inject({ method: 'DELETE', url: `/public/v1/teardown/${docType}/${td.id}`, headers: seller.headers });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      const row = await readTeardown(h.t, td.id);
      expect(row?.[field]).toBeNull();
      expect(row?.documents).toEqual([other]);
      expect(await stored(url)).toBe(false);
      const [latest] = await auditFor(h.t, td.id);
      expect(latest).toMatchObject({
        action: `teardown.${field}.removed`,
        metadata: { url },
        previous_state: { [field]: url },
        new_state: { [field]: null },
      });
    });

    it('answers DELETE of an empty slot with 200 ok and writes nothing', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await h.t.app.inject({ method: 'DELETE', url: `/public/v1/teardown/occm/${td.id}`, headers: seller.headers });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await readTeardown(h.t, td.id))?.updated_at).toEqual(td.updated_at);
      expect(await auditFor(h.t, td.id)).toEqual([]);
    });

    it("keeps the file of a slot pointing outside the teardown's prefix", async () => {
      const victim = await insertTeardown(h.t, seller);
      const victimUrl = await uploaded(`teardown/documents/${victim.id}`);
      const td = await insertTeardown(h.t, seller, { occm: victimUrl, documents: [victimUrl] });
      expect(
        (await h.t.app.inject({ method: 'DELETE', url: `/public/v1/teardown/occm/${td.id}`, headers: seller.headers })).statusCode,
      ).toBe(200);
      expect(await readTeardown(h.t, td.id)).toMatchObject({ occm: null, documents: [] });
      expect(await stored(victimUrl)).toBe(true);
    });
  });

  describe(`access to file endpoints (${kind} store)`, () => {
    /** Every file endpoint, for a teardown id and a listing id. */
    function endpoints(teardownId: string, listingId: string) {
      const url = encodeURIComponent(`${h.mediaBase}teardowns/${teardownId}/documents/abcd1234_a.pdf`);
      return [
        ['POST', `/teardown/documents/${teardownId}`, 'Teardown not found'],
        ['DELETE', `/teardown/documents/${teardownId}/by-url?url=${url}`, 'Teardown not found'],
        ['POST', `/teardown/images/${teardownId}`, 'Teardown not found'],
        ['DELETE', `/teardown/images/${teardownId}/by-url?url=${url}`, 'Teardown not found'],
        ...['harvest-list', 'occm', 'aircraft-details', 'non-incident-statement'].flatMap((docType) => [
          ['POST', `/teardown/${docType}/${teardownId}`, 'Teardown not found'],
          ['DELETE', `/teardown/${docType}/${teardownId}`, 'Teardown not found'],
        ]),
        ['POST', `/sales-lease-exchange/documents/${listingId}`, 'Listing not found'],
        ['DELETE', `/sales-lease-exchange/documents/${listingId}/by-url?url=${url}`, 'Listing not found'],
        ['POST', `/sales-lease-exchange/images/${listingId}`, 'Listing not found'],
        ['DELETE', `/sales-lease-exchange/images/${listingId}/by-url?url=${url}`, 'Listing not found'],
      ] as const;
    }
    const call = (method: string, path: string, principal: Principal) => {
      const form = path.includes('/images/') ? png() : pdf();
      return h.t.app.inject({
        method: method as 'POST' | 'DELETE',
        url: `/public/v1${path}`,
        headers: method === 'POST' ? { ...principal.headers, ...form.headers } : principal.headers,
        ...(method === 'POST' ? { payload: form.payload } : {}),
      });
    };

    it("answers another organization's records with the plain 404 on every endpoint, touching nothing", async () => {
      const owner = await createSeller(h.t);
      const intruder = await createSeller(h.t);
      const url = `${h.mediaBase}teardowns/x/documents/abcd1234_a.pdf`;
      const td = await insertTeardown(h.t, owner, {
        documents: [url],
        occm: url,
        harvest_list: url,
        aircraft_details_doc: url,
        non_incident_statement: url,
      });
      const listing = await insertListing(h.t, owner, { documents: [url], images: [url] });
      for (const [method, path, detail] of endpoints(td.id, listing.id)) {
        const res = await call(method, path, intruder);
        expect({ path, method, status: res.statusCode, body: res.json() }).toEqual({ path, method, status: 404, body: { detail } });
      }
      expect(await readTeardown(h.t, td.id)).toMatchObject({ documents: [url], occm: url, images: null, updated_at: td.updated_at });
      expect(await readListing(h.t, listing.id)).toMatchObject({ documents: [url], images: [url], updated_at: listing.updated_at });
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
      expect(await h.storedKeys(`listings/${listing.id}/`)).toEqual([]);
      expect(await auditFor(h.t, td.id)).toEqual([]);
    });

    it('answers a malformed or unknown id with the plain 404 of its kind on every endpoint', async () => {
      for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        for (const [method, path, detail] of endpoints(id, id)) {
          const res = await call(method, path, seller);
          expect({ path, status: res.statusCode, body: res.json() }).toEqual({ path, status: 404, body: { detail } });
        }
      }
    });

    it('refuses a key whose minter lacks the seller capability with 403 insufficient_capability on every endpoint', async () => {
      const viewer = await createPrincipal(h.t, { capabilities: [] });
      const td = await insertTeardown(h.t, viewer);
      const listing = await insertListing(h.t, viewer);
      for (const [method, path] of endpoints(td.id, listing.id)) {
        const res = await call(method, path, viewer);
        expect({ path, status: res.statusCode, code: res.json().detail?.error_code }).toEqual({
          path,
          status: 403,
          code: 'insufficient_capability',
        });
      }
      expect(await h.storedKeys(`teardowns/${td.id}/`)).toEqual([]);
    });

    it('answers an unknown slot name with 404 Not Found', async () => {
      const td = await insertTeardown(h.t, seller);
      for (const method of ['POST', 'DELETE'] as const) {
        const res = await call(method, `/teardown/maintenance-records/${td.id}`, seller);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Not Found' });
      }
    });

    it('answers a removal without its url query parameter with a 422 schema item', async () => {
      const td = await insertTeardown(h.t, seller);
      const res = await h.t.app.inject({ method: 'DELETE', url: `/public/v1/teardown/documents/${td.id}/by-url`, headers: seller.headers });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([expect.objectContaining({ type: 'missing', loc: ['query', 'url'] })]);
    });
  });
}
