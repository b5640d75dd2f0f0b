// A list total that has to be counted (a search, a filter other than status) is reused while the
// organization's event sequence stands still (events/exact-totals.ts). These tests pin both sides:
// every change made through the service is in the next total at once, on this instance and on any
// other; and the reuse is real, shown by a row changed behind the service's back, which the total
// picks up only when the organization's data next changes, or after LIST_CACHE_SECONDS.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, createPostgresDatabase, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';
import { createTeardown, importTeardowns, listTotal, transition } from '../helpers/teardowns.js';

const TERM = 'gearbox';

const total = listTotal;

const searchTotal = (t: TestApp, principal: Principal) => total(t, principal, `search=${TERM}`);

function patch(t: TestApp, principal: Principal, id: string, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'PATCH', url: `/public/v1/teardowns/${id}`, headers: principal.headers, payload });
}

/** A write the service does not see: no event, so no sequence moves. */
const describeBehindTheService = (t: TestApp, id: string, text: string) =>
  sql`UPDATE teardowns SET description = ${text} WHERE id = ${id}::uuid`.execute(t.database.db);

describe('list totals reused while nothing changed', () => {
  let t: TestApp;
  let seller: Principal;
  let other: Principal;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await createSeller(t);
    other = await createSeller(t);
  });
  afterAll(() => t.close());

  it('counts every change made through the service in the very next total', async () => {
    const rows = [];
    for (let i = 0; i < 4; i++) rows.push(await createTeardown(t, seller, { description: i < 2 ? `Spare ${TERM} lot` : 'Nothing here' }));
    await createTeardown(t, other, { description: `Another ${TERM}` });
    expect(await searchTotal(t, seller)).toBe(2);
    expect(await searchTotal(t, seller)).toBe(2);

    // A PATCH that makes a row match, then one that makes a row stop matching.
    expect((await patch(t, seller, rows[2].teardown_id, { description: `Now with a ${TERM}` })).statusCode).toBe(200);
    expect(await searchTotal(t, seller)).toBe(3);
    expect((await patch(t, seller, rows[0].teardown_id, { description: 'Sold out' })).statusCode).toBe(200);
    expect(await searchTotal(t, seller)).toBe(2);

    // Archived rows leave the default list; a transition back brings them in.
    expect((await transition(t, seller, rows[1].teardown_id, 'archive')).statusCode).toBe(200);
    expect(await searchTotal(t, seller)).toBe(1);
    expect(await total(t, seller, `search=${TERM}&status=archived`)).toBe(1);

    // A create, an import, a delete.
    await createTeardown(t, seller, { description: `Fresh ${TERM}` });
    expect(await searchTotal(t, seller)).toBe(2);
    await importTeardowns(t, seller, [
      {
        asset_type: 'engine',
        status: 'draft',
        start_date: '2026-01-01',
        location: 'Shannon',
        country: 'IE',
        engine_model: 'CFM56-5B',
        description: `Imported ${TERM}`,
      },
    ]);
    expect(await searchTotal(t, seller)).toBe(3);
    const removed = await t.app.inject({ method: 'DELETE', url: `/public/v1/teardowns/${rows[2].teardown_id}`, headers: seller.headers });
    expect(removed.statusCode).toBe(204);
    expect(await searchTotal(t, seller)).toBe(2);

    // The other organization's total was never mixed in, and never moved.
    expect(await searchTotal(t, other)).toBe(1);
  });

  it('is exact after concurrent writes that race the searches', async () => {
    const rows = await Promise.all(Array.from({ length: 12 }, () => createTeardown(t, seller, { description: 'Quiet lot' })));
    const before = await total(t, seller, 'search=racing');
    expect(before).toBe(0);
    await Promise.all([
      ...rows.map((row) => patch(t, seller, row.teardown_id, { description: 'A racing lot' })),
      ...Array.from({ length: 12 }, () => total(t, seller, 'search=racing')),
    ]);
    expect(await total(t, seller, 'search=racing')).toBe(12);
  });

  it('reuses a total until the organization changes, or for LIST_CACHE_SECONDS at most', async () => {
    const seen = await createTeardown(t, seller, { description: 'Ordinary' });
    const unrelated = await createTeardown(t, seller, { description: 'Unrelated' });
    const counted = await total(t, seller, 'search=stealth');
    expect(counted).toBe(0);

    // Written behind the service: the reused total does not know it (the proof that it was reused)...
    await describeBehindTheService(t, seen.teardown_id, 'stealth part');
    expect(await total(t, seller, 'search=stealth')).toBe(0);
    // ...until any change of the organization through the service moves its sequence.
    expect((await patch(t, seller, unrelated.teardown_id, { description: 'Still unrelated' })).statusCode).toBe(200);
    expect(await total(t, seller, 'search=stealth')).toBe(1);

    // With nothing moving, the age limit (60 s by default) ends the reuse.
    await describeBehindTheService(t, unrelated.teardown_id, 'stealth too');
    expect(await total(t, seller, 'search=stealth')).toBe(1);
    t.clock.advance(61_000);
    expect(await total(t, seller, 'search=stealth')).toBe(2);
  });

  it('reuses listing totals the same way, and a listing change moves them', async () => {
    const listing = await createListing(t, seller, { title: 'Plain title' });
    const search = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/public/v1/sales-lease-exchange?search=nacelle', headers: seller.headers });
      expect(res.statusCode).toBe(200);
      return res.json().total as number;
    };
    expect(await search()).toBe(0);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/sales-lease-exchange/${listing.id}`,
      headers: seller.headers,
      payload: { title: 'Nacelle set' },
    });
    expect(res.statusCode).toBe(200);
    expect(await search()).toBe(1);
  });
});

describe('LIST_CACHE_SECONDS=0', () => {
  let t: TestApp;
  let seller: Principal;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIST_CACHE_SECONDS: '0' } });
    seller = await createSeller(t);
  });
  afterAll(() => t.close());

  it('counts on every request', async () => {
    const row = await createTeardown(t, seller, { description: 'Ordinary' });
    expect(await total(t, seller, 'search=stealth')).toBe(0);
    await describeBehindTheService(t, row.teardown_id, 'stealth part');
    expect(await total(t, seller, 'search=stealth')).toBe(1);
  });
});

describe.skipIf(backend() !== 'postgres')('two instances on one database', () => {
  let database: { url: string; drop: () => Promise<void> };
  let a: TestApp;
  let b: TestApp;
  let seller: Principal;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const shared = { url: database.url, drop: async () => {} };
    a = await createTestApp({ postgres: shared });
    b = await createTestApp({ postgres: shared });
    seller = await createSeller(a);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a change made on one instance is in the next total of the other', async () => {
    const row = await createTeardown(a, seller, { description: 'Ordinary' });
    expect(await searchTotal(a, seller)).toBe(0);
    expect((await patch(b, seller, row.teardown_id, { description: `A ${TERM}` })).statusCode).toBe(200);
    expect(await searchTotal(a, seller)).toBe(1);
  });
});
