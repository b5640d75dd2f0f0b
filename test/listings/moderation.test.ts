// Moderation sticks for listings (decisions.md section 9): a seller may set any of the nine statuses,
// except that a listing an operator suspended (PATCH /admin/v1/listings/{id} or an import) only
// moves to suspended or archived until an operator sets another status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createSeller, type Principal } from '../helpers/factories.js';
import { createListing, importListings } from '../helpers/listings.js';
import { readListing } from '../helpers/records.js';

let t: TestApp;
let seller: Principal;
let other: Principal;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
  other = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const patch = (id: string, payload: Record<string, unknown>, principal = seller) =>
  t.app.inject({ method: 'PATCH', url: `/public/v1/sales-lease-exchange/${id}`, headers: principal.headers, payload });
const moderate = (id: string, payload: unknown) => t.admin('PATCH', `/admin/v1/listings/${id}`, payload);

async function suspendedListing(): Promise<string> {
  const listing = await createListing(t, seller);
  const res = await moderate(listing.id, { status: 'suspended', reason: 'price looks fraudulent' });
  expect(res.statusCode).toBe(200);
  return listing.id;
}

describe('operator suspension of a listing', () => {
  it('PATCH /admin/v1/listings/{id} suspends, answers the detail and audits listing.suspended (via_api false)', async () => {
    const listing = await createListing(t, seller);
    const res = await moderate(listing.id, { status: 'suspended', reason: 'price looks fraudulent' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: listing.id, status: 'suspended', org_id: seller.orgId });
    expect(res.json()).not.toHaveProperty('moderation_hold');
    const [row] = await auditFor(t, listing.id);
    expect(row).toMatchObject({
      action: 'listing.suspended',
      previous_state: { status: 'active', moderation_hold: false },
      new_state: { status: 'suspended', moderation_hold: true },
      metadata: { via_api: false, reason: 'price looks fraudulent' },
    });
  });

  it.each(['active', 'under_offer', 'sold', 'leased', 'exchanged', 'draft', 'pending_review'])(
    'refuses a seller PATCH to %s with 409 suspended_by_operator and writes nothing',
    async (status) => {
      const id = await suspendedListing();
      const before = await readListing(t, id);
      const auditCount = (await auditFor(t, id)).length;
      t.clock.advance(1000);
      const res = await patch(id, { status, title: 'Changed title' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        detail: {
          error_code: 'suspended_by_operator',
          message: expect.any(String),
          status: 'suspended',
          allowed: ['suspended', 'archived'],
        },
      });
      expect(await readListing(t, id)).toEqual(before);
      expect(await auditFor(t, id)).toHaveLength(auditCount);
    },
  );

  it('lets the seller change other fields, archive it, and set it back to suspended, but never to active', async () => {
    const id = await suspendedListing();
    const edit = await patch(id, { title: 'Corrected title', price_usd: 100 });
    expect(edit.statusCode).toBe(200);
    expect(edit.json()).toMatchObject({ title: 'Corrected title', status: 'suspended' });
    expect((await patch(id, { status: 'archived' })).json()).toMatchObject({ status: 'archived' });
    expect((await patch(id, { status: 'active' })).json().detail).toMatchObject({
      error_code: 'suspended_by_operator',
      status: 'archived',
    });
    expect((await patch(id, { status: 'suspended' })).json()).toMatchObject({ status: 'suspended' });
    expect((await readListing(t, id))?.moderation_hold).toBe(true);
  });

  it('an operator setting any other status lifts the hold (listing.approved); the seller is then free again', async () => {
    const id = await suspendedListing();
    const res = await moderate(id, { status: 'draft' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'draft' });
    const [row] = await auditFor(t, id);
    expect(row).toMatchObject({
      action: 'listing.approved',
      previous_state: { status: 'suspended', moderation_hold: true },
      new_state: { status: 'draft', moderation_hold: false },
      metadata: { via_api: false },
    });
    expect((await patch(id, { status: 'active' })).json()).toMatchObject({ status: 'active' });
  });

  it('a seller setting suspended itself is not held: it may set active again', async () => {
    const listing = await createListing(t, seller);
    expect((await patch(listing.id, { status: 'suspended' })).json()).toMatchObject({ status: 'suspended' });
    expect((await patch(listing.id, { status: 'active' })).json()).toMatchObject({ status: 'active' });
  });

  it('an imported suspended listing is held', async () => {
    const [id] = await importListings(t, seller, [
      { listing_type: 'aircraft', aircraft_type: 'A320-200', title: 'Imported', status: 'suspended' },
    ]);
    expect((await patch(id, { status: 'active' })).statusCode).toBe(409);
    expect((await readListing(t, id))?.status).toBe('suspended');
  });

  it('of a concurrent operator suspension and seller activation, the seller never ends active and held', async () => {
    for (let i = 0; i < 5; i++) {
      const listing = await createListing(t, seller, { status: 'draft' });
      const [, sellerRes] = await Promise.all([moderate(listing.id, { status: 'suspended' }), patch(listing.id, { status: 'active' })]);
      const row = await readListing(t, listing.id);
      expect(row).toMatchObject({ status: 'suspended', moderation_hold: true });
      expect([200, 409]).toContain(sellerRes.statusCode);
    }
  });

  it('answers 404 for an unknown or malformed id, and 422 for a body outside the schema', async () => {
    expect((await moderate('00000000-0000-4000-8000-000000000000', { status: 'suspended' })).json()).toEqual({
      detail: 'Listing not found',
    });
    expect((await moderate('nope', { status: 'suspended' })).statusCode).toBe(404);
    const listing = await createListing(t, seller);
    for (const body of [{}, { status: 'frozen' }, { status: 'suspended', hold: true }, null]) {
      const res = await moderate(listing.id, body);
      expect(res.statusCode).toBe(422);
      expect(Array.isArray(res.json().detail)).toBe(true);
    }
  });

  it("keeps a seller's PATCH of another organization's held listing a plain 404", async () => {
    const id = await suspendedListing();
    const res = await patch(id, { status: 'active' }, other);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Listing not found' });
  });

  it('needs the admin token', async () => {
    const listing = await createListing(t, seller);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/listings/${listing.id}`,
      headers: seller.headers,
      payload: { status: 'active' },
    });
    expect(res.statusCode).toBe(401);
  });
});
