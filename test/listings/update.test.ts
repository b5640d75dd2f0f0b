// PATCH /public/v1/sales-lease-exchange/{listing_id}: sparse update, statuses, audience, audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createListing, importListings } from '../helpers/listings.js';

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp({ clockStart: new Date('2026-02-01T00:00:00Z') });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const patch = (id: string, payload: unknown, principal: Principal = seller) =>
  t.app.inject({ method: 'PATCH', url: `/public/v1/sales-lease-exchange/${id}`, headers: principal.headers, payload: payload as object });
const get = (id: string, principal: Principal = seller) =>
  t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${id}`, headers: principal.headers });

const STATUSES = ['active', 'under_offer', 'sold', 'leased', 'exchanged', 'suspended', 'archived', 'draft', 'pending_review'];

describe('update listing', () => {
  it('writes only the keys sent and answers the updated detail', async () => {
    const listing = await createListing(t, seller, { title: 'Before', msn: 'M1', condition: 'AR', price_usd: 5, country: 'FR' });
    t.clock.advance(60_000);
    const res = await patch(listing.id, { title: 'After', description: 'now described', country: 'de', cycles_remaining: 3.5 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...listing,
      title: 'After',
      description: 'now described',
      country: 'DE',
      cycles_remaining: 3.5,
      updated_at: new Date(new Date(listing.updated_at as string).getTime() + 60_000).toISOString(),
    });
    expect((await get(listing.id)).json()).toEqual(res.json());
  });

  it('clears the nullable fields with null', async () => {
    const listing = await createListing(t, seller, {
      description: 'd',
      msn: 'm',
      condition: 'c',
      manufacturer: 'mf',
      part_number: 'pn',
      price_usd: 1,
      cycles_remaining: 2,
      country: 'US',
    });
    const cleared = {
      description: null,
      msn: null,
      condition: null,
      manufacturer: null,
      part_number: null,
      price_usd: null,
      cycles_remaining: null,
      country: null,
    };
    const res = await patch(listing.id, cleared);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject(cleared);
  });

  it('refuses null for the title', async () => {
    const listing = await createListing(t, seller);
    const res = await patch(listing.id, { title: null });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'string_type', loc: ['body', 'title'], input: null })]);
  });

  it('refuses a negative price_usd and a negative cycles_remaining', async () => {
    const listing = await createListing(t, seller, { price_usd: 7 });
    const res = await patch(listing.id, { price_usd: -1, cycles_remaining: -2 });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
      ['greater_than_equal', ['body', 'price_usd']],
      ['greater_than_equal', ['body', 'cycles_remaining']],
    ]);
    expect((await get(listing.id)).json().price_usd).toBe(7);
  });

  it.each(STATUSES)('sets the status %s, listed only when active', async (status) => {
    const other = await createSeller(t);
    const listing = await createListing(t, other, { status: 'draft' });
    const res = await patch(listing.id, { status }, other);
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe(status);
    expect((await get(listing.id, other)).json().status).toBe(status);
    const listed = await t.app.inject({ method: 'GET', url: '/public/v1/sales-lease-exchange', headers: other.headers });
    expect(listed.json().items.map((i: { id: string }) => i.id)).toEqual(status === 'active' ? [listing.id] : []);
  });

  it('lets any status follow any other', async () => {
    const listing = await createListing(t, seller);
    for (const status of [
      'sold',
      'active',
      'archived',
      'pending_review',
      'under_offer',
      'draft',
      'leased',
      'suspended',
      'exchanged',
      'active',
    ]) {
      expect((await patch(listing.id, { status })).json().status).toBe(status);
    }
  });

  it('refuses a status outside the nine with a literal_error', async () => {
    const listing = await createListing(t, seller);
    const res = await patch(listing.id, { status: 'deleted' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'literal_error', loc: ['body', 'status'], input: 'deleted' })]);
  });

  it.each([
    ['listing_type', 'engine'],
    ['landing_gear_type', 'A320 Main Landing Gear'],
    ['seller_org', 'x'],
    ['whatever', 1],
  ])('refuses the key %s as extra_forbidden', async (key, value) => {
    const listing = await createListing(t, seller);
    const res = await patch(listing.id, { title: 'ok', [key]: value });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', key] })]);
    expect((await get(listing.id)).json().title).toBe(listing.title);
  });

  it('answers an empty body with the listing unchanged and writes no audit row', async () => {
    const listing = await createListing(t, seller);
    t.clock.advance(1000);
    const res = await patch(listing.id, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(listing);
    expect((await auditFor(t, listing.id)).map((r) => r.action)).toEqual(['listing.created']);
  });

  it('records listing.updated with the old values of the keys sent and the body sent', async () => {
    const listing = await createListing(t, seller, { title: 'Old', msn: 'M-1', price_usd: 10, aircraft_type: 'A320-200' });
    const body = { title: 'New', msn: null, price_usd: 12.5, status: 'under_offer', country: 'gb', aircraft_type: 'a321neo' };
    expect((await patch(listing.id, body)).statusCode).toBe(200);
    const [row] = await auditFor(t, listing.id);
    expect(row).toMatchObject({
      action: 'listing.updated',
      previous_state: { title: 'Old', msn: 'M-1', price_usd: 10, status: 'active', country: null, aircraft_type: 'A320-200' },
      new_state: body,
      metadata: { via_api: true, api_key_id: seller.keyId, api_key_prefix: seller.key.slice(0, 12) },
    });
  });

  describe('vocabulary', () => {
    it('applies the vocabulary field of the listing type, case-insensitively', async () => {
      const listing = await createListing(t, seller, { listing_type: 'engine', engine_model: 'CFM56-5B' });
      const res = await patch(listing.id, { engine_model: ' trent 1000 ' });
      expect(res.statusCode).toBe(200);
      expect(res.json().engine_model).toMatchObject({ name: 'Trent 1000', manufacturer: 'Rolls-Royce' });
    });

    it('ignores the vocabulary fields of other types, even unknown names', async () => {
      const listing = await createListing(t, seller, { listing_type: 'apu', apu_model: '131-9A' });
      const res = await patch(listing.id, { aircraft_type: 'Concorde', engine_model: 'LEAP-1A' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(listing);
      expect((await auditFor(t, listing.id)).map((r) => r.action)).toEqual(['listing.created']);
    });

    it('answers 400 unknown_vocabulary for an unknown name of the listing type and changes nothing', async () => {
      const listing = await createListing(t, seller);
      const res = await patch(listing.id, { title: 'changed?', aircraft_type: 'Concorde' });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatchObject({ error_code: 'unknown_vocabulary', field: 'aircraft_type', value: 'Concorde' });
      expect((await get(listing.id)).json().title).toBe(listing.title);
    });
  });

  describe('audience', () => {
    it('canonicalises values, drops duplicates and keeps the order', async () => {
      const listing = await createListing(t, seller);
      const res = await patch(listing.id, { audience: ['mro', 'Airline', 'MRO', ' oem '] });
      expect(res.statusCode).toBe(200);
      expect(res.json().audience).toEqual(['MRO', 'Airline', 'OEM']);
    });

    it('shows audience_set_at once an audience was set, and keeps it after clearing', async () => {
      const listing = await createListing(t, seller);
      expect(listing).not.toHaveProperty('audience_set_at');
      t.clock.advance(5000);
      const set = (await patch(listing.id, { audience: ['Lessor'] })).json();
      expect(set.audience_set_at).toBe(t.clock.now().toISOString());
      const cleared = (await patch(listing.id, { audience: null })).json();
      expect(cleared.audience).toBeNull();
      expect(cleared.audience_set_at).toEqual(expect.any(String));
    });

    it('records listing.audience.set, then listing.audience.changed, and nothing when unchanged', async () => {
      const listing = await createListing(t, seller);
      await patch(listing.id, { audience: ['Airline'] });
      await patch(listing.id, { audience: ['airline'] });
      await patch(listing.id, { audience: ['Airline', 'OEM'] });
      await patch(listing.id, { audience: null });
      // Rows of one request share its transaction; only the audience rows' own order is asserted.
      const all = (await auditFor(t, listing.id)).reverse();
      expect(all.filter((r) => r.action === 'listing.updated')).toHaveLength(4);
      const rows = all.filter((r) => r.action.startsWith('listing.audience.'));
      expect(rows.map((r) => r.action)).toEqual(['listing.audience.set', 'listing.audience.changed', 'listing.audience.changed']);
      expect(rows[0]).toMatchObject({ previous_state: { audience: null }, new_state: { audience: ['Airline'] } });
      expect(rows[1]).toMatchObject({ previous_state: { audience: ['Airline'] }, new_state: { audience: ['Airline', 'OEM'] } });
      expect(rows[2]).toMatchObject({ previous_state: { audience: ['Airline', 'OEM'] }, new_state: { audience: null } });
    });

    it('refuses an empty list with invalid_audience', async () => {
      const listing = await createListing(t, seller);
      const res = await patch(listing.id, { audience: [] });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toMatchObject({
        error_code: 'invalid_audience',
        allowed: ['Airline', 'Lessor', 'OEM', 'MRO', 'Distributor', 'Others'],
      });
    });

    it('refuses an unknown value with invalid_audience naming it', async () => {
      const listing = await createListing(t, seller);
      const res = await patch(listing.id, { audience: ['Airline', 'Pilots'] });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toMatchObject({ error_code: 'invalid_audience', got: ['Pilots'] });
      expect((await get(listing.id)).json().audience).toBeNull();
    });
  });

  describe('images and documents', () => {
    it('overwrites the arrays with the URLs sent', async () => {
      const listing = await createListing(t, seller);
      const urls = ['https://cdn.example.com/a.jpg', 'http://cdn.example.com/b.png'];
      const res = await patch(listing.id, { images: urls, documents: ['https://docs.example.com/x.pdf'] });
      expect(res.json()).toMatchObject({ images: urls, documents: ['https://docs.example.com/x.pdf'] });
      expect((await patch(listing.id, { images: [] })).json().images).toEqual([]);
    });

    it.each(['/relative/path.jpg', 'ftp://host/file', 'not a url'])('refuses %s, which is no absolute http(s) URL', async (url) => {
      const listing = await createListing(t, seller);
      const res = await patch(listing.id, { documents: [url] });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ type: 'url_parsing', loc: ['body', 'documents', 0] });
    });
  });

  describe('legacy rows', () => {
    it('updates a legacy landing_gear listing but never its classification', async () => {
      const [id] = await importListings(t, seller, [
        { listing_type: 'landing_gear', title: 'MLG', landing_gear_type: 'A320 Main Landing Gear' },
      ]);
      const res = await patch(id, { title: 'MLG overhauled', aircraft_type: 'A320-200' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ title: 'MLG overhauled', landing_gear_type: { name: 'A320 Main Landing Gear' } });
      expect(res.json()).not.toHaveProperty('aircraft_type');
    });
  });

  describe('access', () => {
    it('answers 404 for a listing of another organization and changes nothing', async () => {
      const listing = await createListing(t, seller);
      const stranger = await createSeller(t);
      const res = await patch(listing.id, { title: 'hijacked' }, stranger);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Listing not found' });
      expect((await get(listing.id)).json().title).toBe(listing.title);
    });

    it('answers 404 for a foreign listing before judging its vocabulary', async () => {
      const listing = await createListing(t, seller);
      const stranger = await createSeller(t);
      const res = await patch(listing.id, { aircraft_type: 'Concorde' }, stranger);
      expect(res.statusCode).toBe(404);
    });

    it.each(['00000000-0000-4000-8000-000000000000', 'garbage'])('answers 404 for the id %s', async (id) => {
      const res = await patch(id, { title: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Listing not found' });
    });

    it('validates the body before looking the listing up', async () => {
      const res = await patch('00000000-0000-4000-8000-000000000000', { listing_type: 'engine' });
      expect(res.statusCode).toBe(422);
    });

    it('answers 403 insufficient_capability to a key whose minter is not a seller', async () => {
      const listing = await createListing(t, seller);
      const viewer = await createPrincipal(t, { capabilities: [], orgId: seller.orgId });
      const res = await patch(listing.id, { title: 'nope' }, viewer);
      expect(res.statusCode).toBe(403);
      expect(res.json().detail.error_code).toBe('insufficient_capability');
    });
  });
});
