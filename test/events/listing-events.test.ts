// Every change of a listing writes its event, in the transaction of the change; data.object is the
// record exactly as GET by id answers it right after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { eventsSince } from '../helpers/events.js';
import { createListing, importListings } from '../helpers/listings.js';

let t: TestApp;
let seller: Principal;

beforeAll(async () => {
  t = await createTestApp({ clockStart: new Date('2026-03-10T12:00:00.000Z') });
  seller = await createSeller(t);
});
afterAll(() => t.close());

async function getListing(id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${id}`, headers: seller.headers });
  expect(res.statusCode).toBe(200);
  return res.json();
}

const patch = (id: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url: `/public/v1/sales-lease-exchange/${id}`, headers: seller.headers, payload });

const cursorNow = async () => (await eventsSince(t, seller)).cursor;

describe('listing events', () => {
  it('create writes listing.created with the record as GET answers it', async () => {
    const before = await cursorNow();
    const listing = await createListing(t, seller, { price_usd: 1250000.5, country: 'fr' });
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['listing.created']);
    expect(events[0].data).toEqual({ entity_id: listing.id, object: await getListing(listing.id) });
    expect(events[0].data.object).toEqual(listing);
  });

  it('a PATCH of fields writes listing.updated only', async () => {
    const listing = await createListing(t, seller);
    const before = await cursorNow();
    t.clock.advance(1000);
    const res = await patch(listing.id, { title: 'A320 for sale', audience: ['Lessor'] });
    expect(res.statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['listing.updated']);
    expect(events[0].data.object).toEqual(await getListing(listing.id));
    expect(events[0].created_at).toBe(t.clock.now().toISOString());
  });

  it('a PATCH of the status only writes listing.status_changed; status and fields write both', async () => {
    const listing = await createListing(t, seller);
    const before = await cursorNow();
    expect((await patch(listing.id, { status: 'archived' })).statusCode).toBe(200);
    const afterStatus = await getListing(listing.id);
    expect((await patch(listing.id, { status: 'active', title: 'Back on the market' })).statusCode).toBe(200);
    // The same status again is still a write (updated_at and the ETag move): updated.
    expect((await patch(listing.id, { status: 'active' })).statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.previous_status, e.data.object.status])).toEqual([
      ['listing.status_changed', 'active', 'archived'],
      ['listing.updated', undefined, 'active'],
      ['listing.status_changed', 'archived', 'active'],
      ['listing.updated', undefined, 'active'],
    ]);
    expect(events[0].data.object).toEqual(afterStatus);
    expect(events[3].data.object).toEqual(await getListing(listing.id));
  });

  it('no event for an empty PATCH, a refused PATCH, or an unknown listing', async () => {
    const listing = await createListing(t, seller);
    const before = await cursorNow();
    expect((await patch(listing.id, {})).statusCode).toBe(200);
    expect((await patch(listing.id, { price_usd: -1 })).statusCode).toBe(422);
    // An operator hold refuses the seller's status: the UPDATE rolls back with its audit and event.
    expect((await t.admin('PATCH', `/admin/v1/listings/${listing.id}`, { status: 'suspended' })).statusCode).toBe(200);
    const refused = await patch(listing.id, { status: 'active', title: 'Not written' });
    expect(refused.statusCode).toBe(409);
    const stale = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/sales-lease-exchange/${listing.id}`,
      headers: { ...seller.headers, 'if-match': '"1-00000000"' },
      payload: { title: 'Stale' },
    });
    expect(stale.statusCode).toBe(412);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => e.type)).toEqual(['listing.status_changed']);
  });

  it('operator moderation writes listing.status_changed, or listing.updated when the status stays', async () => {
    const listing = await createListing(t, seller);
    const before = await cursorNow();
    expect((await t.admin('PATCH', `/admin/v1/listings/${listing.id}`, { status: 'suspended', reason: 'check' })).statusCode).toBe(200);
    expect((await t.admin('PATCH', `/admin/v1/listings/${listing.id}`, { status: 'suspended' })).statusCode).toBe(200);
    expect((await t.admin('PATCH', `/admin/v1/listings/${listing.id}`, { status: 'active' })).statusCode).toBe(200);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.previous_status])).toEqual([
      ['listing.status_changed', 'active'],
      ['listing.updated', undefined],
      ['listing.status_changed', 'suspended'],
    ]);
    expect(events[2].data.object).toEqual(await getListing(listing.id));
  });

  it('DELETE writes listing.deleted with the fields the audit keeps', async () => {
    const listing = await createListing(t, seller, { title: 'Gone soon', msn: '4242', country: 'DE' });
    const before = await cursorNow();
    const res = await t.app.inject({ method: 'DELETE', url: `/public/v1/sales-lease-exchange/${listing.id}`, headers: seller.headers });
    expect(res.statusCode).toBe(204);
    const again = await t.app.inject({ method: 'DELETE', url: `/public/v1/sales-lease-exchange/${listing.id}`, headers: seller.headers });
    expect(again.statusCode).toBe(404);
    const { events } = await eventsSince(t, seller, before);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('listing.deleted');
    expect(events[0].data).toEqual({
      entity_id: listing.id,
      object: { title: 'Gone soon', msn: '4242', listing_type: 'aircraft', status: 'active', country: 'DE' },
    });
  });

  it('operator import writes one listing.created per row, in item order, each as GET answers it', async () => {
    const before = await cursorNow();
    const ids = await importListings(t, seller, [
      { listing_type: 'engine', title: 'Imported engine', engine_model: 'CFM56-5B', status: 'suspended', audience: ['mro'] },
      { listing_type: 'parts', title: 'Legacy parts', created_at: '2020-01-01T00:00:00Z' },
    ]);
    const { events } = await eventsSince(t, seller, before);
    expect(events.map((e) => [e.type, e.data.entity_id])).toEqual([
      ['listing.created', ids[0]],
      ['listing.created', ids[1]],
    ]);
    expect(events[0].data.object).toEqual(await getListing(ids[0]));
    expect(events[1].data.object).toEqual(await getListing(ids[1]));
  });

  it('a refused import writes nothing', async () => {
    const before = await cursorNow();
    const res = await t.admin('POST', '/admin/v1/import/listings', {
      org_id: seller.orgId,
      created_by: seller.userId,
      items: [{ listing_type: 'aircraft', title: 'Unknown type', aircraft_type: 'No such aircraft' }],
    });
    expect(res.statusCode).toBe(422);
    expect((await eventsSince(t, seller, before)).events).toEqual([]);
  });
});
