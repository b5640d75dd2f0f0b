// DELETE /public/v1/sales-lease-exchange/{listing_id}: audit and hard delete together, files after.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const del = (id: string, principal: Principal = seller) =>
  t.app.inject({ method: 'DELETE', url: `/public/v1/sales-lease-exchange/${id}`, headers: principal.headers });
const get = (id: string, principal: Principal = seller) =>
  t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${id}`, headers: principal.headers });

/** Stores a file under `key` and answers its public URL and where it lies on disk. */
async function storedFile(key: string) {
  const { publicUrl, mediaBucket } = t.app.ctx.config.storage;
  await t.app.ctx.store.put(key, Readable.from([Buffer.from('%PDF-1.4 test')]), 'application/pdf');
  return { url: `${publicUrl}/${mediaBucket}/${key}`, path: join(t.dataDir, 'storage', mediaBucket, key) };
}

describe('delete listing', () => {
  it('answers 204 with an empty body, after which the listing is gone', async () => {
    const listing = await createListing(t, seller);
    const res = await del(listing.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(listing.id)).statusCode).toBe(404);
  });

  it('answers 404 to a second delete', async () => {
    const listing = await createListing(t, seller);
    expect((await del(listing.id)).statusCode).toBe(204);
    const again = await del(listing.id);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ detail: 'Listing not found' });
  });

  it('records listing.deleted with the title, msn, type, status and country it had', async () => {
    const listing = await createListing(t, seller, { msn: 'MSN-7', country: 'it', status: 'draft' });
    await del(listing.id);
    const [row] = await auditFor(t, listing.id);
    expect(row).toMatchObject({
      action: 'listing.deleted',
      previous_state: { title: listing.title, msn: 'MSN-7', listing_type: 'aircraft', status: 'draft', country: 'IT' },
      metadata: { via_api: true, api_key_id: seller.keyId },
    });
  });

  it("deletes the listing's own files and leaves URLs outside its prefix in storage", async () => {
    const listing = await createListing(t, seller);
    const other = await createListing(t, seller);
    const doc = await storedFile(`listings/${listing.id}/documents/0a1b2c3d_spec.pdf`);
    const image = await storedFile(`listings/${listing.id}/images/0a1b2c3e_photo.jpg`);
    const foreign = await storedFile(`listings/${other.id}/documents/0a1b2c3f_other.pdf`);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/sales-lease-exchange/${listing.id}`,
      headers: seller.headers,
      payload: { documents: [doc.url, foreign.url, 'https://elsewhere.example.com/x.pdf'], images: [image.url] },
    });
    expect(patched.statusCode).toBe(200);
    expect([doc, image, foreign].every((f) => existsSync(f.path))).toBe(true);

    expect((await del(listing.id)).statusCode).toBe(204);
    expect(existsSync(doc.path)).toBe(false);
    expect(existsSync(image.path)).toBe(false);
    expect(existsSync(foreign.path)).toBe(true);
  });

  it('answers 404 for a listing of another organization and keeps it', async () => {
    const listing = await createListing(t, seller);
    const stranger = await createSeller(t);
    const res = await del(listing.id, stranger);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Listing not found' });
    expect((await get(listing.id)).statusCode).toBe(200);
    expect((await auditFor(t, listing.id)).map((r) => r.action)).toEqual(['listing.created']);
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'nope'])('answers 404 for the id %s', async (id) => {
    const res = await del(id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Listing not found' });
  });

  it('answers 403 insufficient_capability to a key whose minter is not a seller', async () => {
    const listing = await createListing(t, seller);
    const viewer = await createPrincipal(t, { capabilities: [], orgId: seller.orgId });
    const res = await del(listing.id, viewer);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail.error_code).toBe('insufficient_capability');
    expect((await get(listing.id)).statusCode).toBe(200);
  });
});
