// GET /public/v1/sales-lease-exchange (list) and /{listing_id} (detail): decisions.md section 5.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { createListing, importListings, type ListingJson } from '../helpers/listings.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clockStart: new Date('2026-01-01T00:00:00Z') });
});
afterAll(async () => {
  await t.close();
});

const list = (principal: Principal, query = '') =>
  t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange${query}`, headers: principal.headers });
const get = (principal: Principal, id: string) =>
  t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${id}`, headers: principal.headers });
const titles = (res: { json(): { items: { title: string }[] } }) => res.json().items.map((i) => i.title);

/** Creates listings one second apart, so their order is known. */
async function createInOrder(principal: Principal, bodies: Record<string, unknown>[]): Promise<ListingJson[]> {
  const created: ListingJson[] = [];
  for (const body of bodies) {
    t.clock.advance(1000);
    created.push(await createListing(t, principal, body));
  }
  return created;
}

describe('list listings', () => {
  it('answers the list item shape and the page envelope', async () => {
    const seller = await createSeller(t);
    const [listing] = await createInOrder(seller, [
      {
        title: 'Item shape',
        msn: '123',
        condition: 'AR',
        price_usd: 10,
        country: 'DE',
        cycles_remaining: 5,
        description: 'hidden in list',
      },
    ]);
    const res = await list(seller);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        {
          id: listing.id,
          listing_type: 'aircraft',
          title: 'Item shape',
          msn: '123',
          condition: 'AR',
          price_usd: 10,
          country: 'DE',
          status: 'active',
          cycles_remaining: 5,
          aircraft_type: listing.aircraft_type,
          seller_org: listing.seller_org,
          created_at: listing.created_at,
          updated_at: listing.updated_at,
        },
      ],
      total: 1,
      page: 1,
      per_page: 20,
      pages: 1,
    });
  });

  it('answers an empty page with pages 0 when nothing matches', async () => {
    const seller = await createSeller(t);
    expect((await list(seller)).json()).toEqual({ items: [], total: 0, page: 1, per_page: 20, pages: 0 });
  });

  it("lists only the caller's organization", async () => {
    const mine = await createSeller(t);
    const theirs = await createSeller(t);
    await createInOrder(mine, [{ title: 'mine' }]);
    await createInOrder(theirs, [{ title: 'theirs' }]);
    expect(titles(await list(mine))).toEqual(['mine']);
  });

  it('lists active listings only, whatever their other statuses', async () => {
    const seller = await createSeller(t);
    await importListings(
      t,
      seller,
      ['active', 'under_offer', 'sold', 'leased', 'exchanged', 'suspended', 'archived', 'draft', 'pending_review'].map((status) => ({
        listing_type: 'aircraft',
        title: status,
        status,
        aircraft_type: 'A320-200',
      })),
    );
    const res = await list(seller);
    expect(titles(res)).toEqual(['active']);
    expect(res.json().total).toBe(1);
  });

  it('leaves legacy parts and landing_gear listings out of the list', async () => {
    const seller = await createSeller(t);
    await importListings(t, seller, [
      { listing_type: 'parts', title: 'legacy parts' },
      { listing_type: 'landing_gear', title: 'legacy gear', landing_gear_type: 'A320 Main Landing Gear' },
    ]);
    await createInOrder(seller, [{ title: 'current' }]);
    expect(titles(await list(seller))).toEqual(['current']);
  });

  it('orders newest first and breaks created_at ties on id, descending', async () => {
    const seller = await createSeller(t);
    const [older] = await createInOrder(seller, [{ title: 'older' }]);
    t.clock.advance(1000);
    const tied = [await createListing(t, seller, { title: 'tie' }), await createListing(t, seller, { title: 'tie' })];
    const ids = (await list(seller)).json().items.map((i: { id: string }) => i.id);
    expect(ids).toEqual([
      ...tied
        .map((l) => l.id)
        .sort()
        .reverse(),
      older.id,
    ]);
  });

  it('pages with page and per_page without overlap', async () => {
    const seller = await createSeller(t);
    await createInOrder(
      seller,
      ['1', '2', '3', '4', '5'].map((n) => ({ title: `p${n}` })),
    );
    const first = await list(seller, '?per_page=2');
    expect(first.json()).toMatchObject({ total: 5, page: 1, per_page: 2, pages: 3 });
    expect(titles(first)).toEqual(['p5', 'p4']);
    expect(titles(await list(seller, '?per_page=2&page=2'))).toEqual(['p3', 'p2']);
    expect(titles(await list(seller, '?per_page=2&page=3'))).toEqual(['p1']);
    expect((await list(seller, '?per_page=2&page=4')).json()).toMatchObject({ items: [], total: 5, pages: 3 });
  });

  it.each([
    ['per_page=0', 'per_page', 'greater_than_equal'],
    ['per_page=101', 'per_page', 'less_than_equal'],
    ['page=0', 'page', 'greater_than_equal'],
    ['page=two', 'page', 'int_parsing'],
  ])('refuses %s with a query schema item', async (query, name, type) => {
    const seller = await createSeller(t);
    const res = await list(seller, `?${query}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type, loc: ['query', name] })]);
  });

  it('filters on listing_type', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [
      { title: 'an aircraft' },
      { title: 'an engine', listing_type: 'engine' },
      { title: 'an apu', listing_type: 'apu' },
    ]);
    expect(titles(await list(seller, '?listing_type=engine'))).toEqual(['an engine']);
    expect(titles(await list(seller, '?listing_type=apu'))).toEqual(['an apu']);
    expect(titles(await list(seller, '?listing_type=aircraft'))).toEqual(['an aircraft']);
  });

  it.each(['parts', 'landing_gear'])('refuses listing_type=%s with 422', async (listingType) => {
    const seller = await createSeller(t);
    const res = await list(seller, `?listing_type=${listingType}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'literal_error', loc: ['query', 'listing_type'], input: listingType }),
    ]);
  });

  it('filters on aircraft_type by name, case-insensitively', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [
      { title: 'a320', aircraft_type: 'A320-200' },
      { title: '737', aircraft_type: '737-800' },
    ]);
    expect(titles(await list(seller, '?aircraft_type=a320-200'))).toEqual(['a320']);
    // The same statement shape with another term (the compiled statement binds each request's values).
    expect(titles(await list(seller, '?aircraft_type=737-800'))).toEqual(['737']);
    expect(titles(await list(seller, '?aircraft_type=737-800&sort_dir=asc'))).toEqual(['737']);
  });

  it('filters on engine_model and apu_model by name', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [
      { title: 'leap', listing_type: 'engine', engine_model: 'LEAP-1A' },
      { title: 'cfm', listing_type: 'engine', engine_model: 'CFM56-7B' },
      { title: 'apu 131', listing_type: 'apu', apu_model: '131-9A' },
      { title: 'apu 36', listing_type: 'apu', apu_model: 'GTCP36-150' },
    ]);
    expect(titles(await list(seller, '?engine_model=leap-1a'))).toEqual(['leap']);
    expect(titles(await list(seller, '?apu_model=GTCP36-150'))).toEqual(['apu 36']);
  });

  it.each(['aircraft_type', 'engine_model', 'apu_model'])('answers 400 unknown_vocabulary for an unknown %s', async (field) => {
    const seller = await createSeller(t);
    const res = await list(seller, `?${field}=Nope`);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatchObject({ error_code: 'unknown_vocabulary', field, value: 'Nope', valid_values: expect.any(Array) });
  });

  it('filters on condition by case-insensitive equality, not substring', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [
      { title: 'sv', condition: 'Serviceable' },
      { title: 'unsv', condition: 'Unserviceable' },
      { title: 'none' },
    ]);
    expect(titles(await list(seller, '?condition=serviceable'))).toEqual(['sv']);
    expect(titles(await list(seller, '?condition=SERV'))).toEqual([]);
  });

  it('filters on country by case-insensitive substring', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [{ title: 'fr', country: 'FR' }, { title: 'de', country: 'DE' }, { title: 'nowhere' }]);
    expect(titles(await list(seller, '?country=f'))).toEqual(['fr']);
    expect(titles(await list(seller, '?country=de'))).toEqual(['de']);
  });

  it('searches title, description and msn as a case-insensitive substring', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [
      { title: 'Needle in title' },
      { title: 'desc', description: 'has a NEEDLE inside' },
      { title: 'msn', msn: 'needle-42' },
      { title: 'nothing here', condition: 'needle' },
    ]);
    expect(titles(await list(seller, '?search=needle'))).toEqual(['msn', 'desc', 'Needle in title']);
  });

  it('matches % and _ in search and country literally', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [{ title: '100% serviceable' }, { title: '100 serviceable' }, { title: 'a_b' }, { title: 'axb' }]);
    expect(titles(await list(seller, `?search=${encodeURIComponent('100%')}`))).toEqual(['100% serviceable']);
    expect(titles(await list(seller, '?search=a_b'))).toEqual(['a_b']);
    expect(titles(await list(seller, `?country=${encodeURIComponent('%')}`))).toEqual([]);
  });

  it('combines filters with AND', async () => {
    const seller = await createSeller(t);
    await createInOrder(seller, [
      { title: 'fr engine', listing_type: 'engine', country: 'FR' },
      { title: 'fr aircraft', country: 'FR' },
      { title: 'de engine', listing_type: 'engine', country: 'DE' },
    ]);
    expect(titles(await list(seller, '?listing_type=engine&country=fr'))).toEqual(['fr engine']);
  });

  it('needs no seller capability to read', async () => {
    const seller = await createSeller(t);
    const [listing] = await createInOrder(seller, [{ title: 'readable' }]);
    const viewer = await createPrincipal(t, { capabilities: [], orgId: seller.orgId });
    expect(titles(await list(viewer))).toEqual(['readable']);
    expect((await get(viewer, listing.id)).statusCode).toBe(200);
  });
});

describe('get listing', () => {
  it('reads a listing in any status', async () => {
    const seller = await createSeller(t);
    const [id] = await importListings(t, seller, [
      { listing_type: 'engine', title: 'sold one', status: 'sold', engine_model: 'GE90-115B' },
    ]);
    const res = await get(seller, id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'sold', engine_model: { name: 'GE90-115B' } });
  });

  it('reads a legacy parts listing, which has no vocabulary object', async () => {
    const seller = await createSeller(t);
    const [id] = await importListings(t, seller, [{ listing_type: 'parts', title: 'Rotables lot', part_number: 'P-9' }]);
    const body = (await get(seller, id)).json();
    expect(body).toMatchObject({ id, listing_type: 'parts', part_number: 'P-9' });
    for (const key of ['aircraft_type', 'engine_model', 'apu_model', 'landing_gear_type']) expect(body).not.toHaveProperty(key);
  });

  it('reads a legacy landing_gear listing with its landing_gear_type object', async () => {
    const seller = await createSeller(t);
    const [id] = await importListings(t, seller, [
      { listing_type: 'landing_gear', title: 'MLG', landing_gear_type: 'a320 main landing gear' },
    ]);
    const body = (await get(seller, id)).json();
    expect(body.landing_gear_type).toMatchObject({ name: 'A320 Main Landing Gear', manufacturer: 'Safran Landing Systems' });
  });

  it('answers 404 "Listing not found" for a listing of another organization', async () => {
    const owner = await createSeller(t);
    const stranger = await createSeller(t);
    const [listing] = await createInOrder(owner, [{ title: 'private' }]);
    const res = await get(stranger, listing.id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Listing not found' });
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1'])('answers 404 "Listing not found" for the id %s', async (id) => {
    const seller = await createSeller(t);
    const res = await get(seller, id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Listing not found' });
  });
});
