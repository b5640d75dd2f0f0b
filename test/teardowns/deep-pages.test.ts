// Deep teardown pages (OFFSET 1,000 and past) start from a kept position when the organization's
// data has not changed since it was found (teardowns/page-anchors.ts). Whatever path a page takes,
// it must hold exactly the rows an independent ORDER BY puts there: in every sort order, with ties
// broken by id, with timestamps to the microsecond, after changes that shift positions, and after a
// change on another instance. A row changed behind the service's back shows that positions are
// really reused: the page keeps it until the organization next changes, or LIST_CACHE_SECONDS.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, createPostgresDatabase, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns } from '../helpers/teardowns.js';

const PER_PAGE = 100;
const ROWS = 1700;
const COUNTRIES = ['FR', 'IE', 'US', 'DE', 'BR'];
const STATUSES = ['draft', 'active_starting', 'active_in_process', 'active_completed', 'suspended', 'archived'];

/** Sort orders the API offers, as query string and as the independent ORDER BY. */
const ORDERS = [
  { query: '', orderBy: 'created_at DESC, id DESC' },
  { query: '&sort_by=created_at&sort_dir=asc', orderBy: 'created_at ASC, id ASC' },
  { query: '&sort_by=location_country&sort_dir=asc', orderBy: 'country ASC, id ASC' },
  { query: '&sort_by=teardown_start_date&sort_dir=desc', orderBy: 'start_date DESC, id DESC' },
  { query: '&sort_by=status&sort_dir=desc', orderBy: 'status DESC, id DESC' },
  { query: '&sort_by=asset_type&sort_dir=asc', orderBy: 'asset_type ASC, id ASC' },
  { query: '&sort_by=updated_at&sort_dir=asc', orderBy: 'updated_at ASC, id ASC' },
];

async function seed(t: TestApp, seller: Principal) {
  for (let from = 0; from < ROWS; from += 500) {
    const items = Array.from({ length: Math.min(500, ROWS - from) }, (_, k) => {
      const i = from + k;
      return {
        asset_type: i % 3 ? 'aircraft' : 'engine',
        ...(i % 3 ? { aircraft_type: 'A320-200' } : { engine_model: 'CFM56-5B' }),
        status: STATUSES[i % STATUSES.length],
        start_date: `2026-0${1 + (i % 9)}-1${i % 10}`,
        location: 'Tarbes',
        country: COUNTRIES[i % COUNTRIES.length],
        msn: `MSN ${i}`,
        // Many rows share a created_at: the order inside a tie is the id's.
        created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 4))).toISOString(),
      };
    });
    await importTeardowns(t, seller, items);
  }
  // Microseconds the API never writes, but a row copied in by SQL can hold: a printed position must keep them.
  await sql`UPDATE teardowns SET created_at = created_at + make_interval(secs => (abs(hashtext(id::text)) % 1000000) / 1e6)
            WHERE org_id = ${seller.orgId}::uuid`.execute(t.database.db);
}

async function pageIds(t: TestApp, seller: Principal, page: number, order: string): Promise<string[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/public/v1/teardowns?per_page=${PER_PAGE}&page=${page}${order}`,
    headers: seller.headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json().items.map((item: { id: string }) => item.id);
}

async function expectedIds(t: TestApp, seller: Principal, page: number, orderBy: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM teardowns WHERE org_id = ${seller.orgId}::uuid AND status <> 'archived'
    ORDER BY ${sql.raw(orderBy)} LIMIT ${PER_PAGE} OFFSET ${(page - 1) * PER_PAGE}`.execute(t.database.db);
  return rows.map((row) => row.id);
}

describe('deep pages', () => {
  let t: TestApp;
  let seller: Principal;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await createSeller(t);
    await seed(t, seller);
  });
  afterAll(() => t.close());

  it('hold exactly the rows of their place in every sort order, found once and from a kept position', async () => {
    for (const { query, orderBy } of ORDERS) {
      for (const page of [11, 11, 12, 11, 13]) {
        expect(await pageIds(t, seller, page, query), `${orderBy} page ${page}`).toEqual(await expectedIds(t, seller, page, orderBy));
      }
    }
  });

  it('follow every change that moves positions: a create, a delete, a transition', async () => {
    const walk = async () => {
      for (const page of [11, 12])
        expect(await pageIds(t, seller, page, '')).toEqual(await expectedIds(t, seller, page, 'created_at DESC, id DESC'));
    };
    await walk();
    await createTeardown(t, seller); // the newest: every row moves down one place
    await walk();
    const [first] = await expectedIds(t, seller, 1, 'created_at DESC, id DESC');
    const removed = await t.app.inject({ method: 'DELETE', url: `/public/v1/teardowns/${first}`, headers: seller.headers });
    expect(removed.statusCode).toBe(204);
    await walk();
    const [second] = await expectedIds(t, seller, 1, 'created_at DESC, id DESC');
    const moved = await t.app.inject({
      method: 'POST',
      url: `/public/v1/teardowns/transition/${second}`,
      headers: seller.headers,
      payload: { action: 'archive' },
    });
    expect(moved.statusCode).toBe(200);
    await walk();
  });

  it('are the same for concurrent requests of a page no one asked for yet', async () => {
    const query = '&sort_by=asset_type&sort_dir=desc';
    const expected = await expectedIds(t, seller, 13, 'asset_type DESC, id DESC');
    const pages = await Promise.all(Array.from({ length: 20 }, () => pageIds(t, seller, 13, query)));
    for (const page of pages) expect(page).toEqual(expected);
  });

  it('past the end are empty, and the last page is whole', async () => {
    const total = (await t.app.inject({ method: 'GET', url: '/public/v1/teardowns?per_page=1', headers: seller.headers })).json().total;
    const last = Math.ceil(total / PER_PAGE);
    for (const page of [last, last, last + 1, last + 1]) {
      expect(await pageIds(t, seller, page, '')).toEqual(await expectedIds(t, seller, page, 'created_at DESC, id DESC'));
    }
  });

  it('reuse positions until the organization changes, or for LIST_CACHE_SECONDS at most', async () => {
    const order = 'created_at DESC, id DESC';
    const before = await pageIds(t, seller, 12, '');
    expect(await pageIds(t, seller, 12, '')).toEqual(before);
    // Behind the service: the row before page 12 is archived. The kept position still holds...
    const [lastOf11] = (await expectedIds(t, seller, 11, order)).slice(-1);
    await sql`UPDATE teardowns SET status = 'archived' WHERE id = ${lastOf11}::uuid`.execute(t.database.db);
    expect(await pageIds(t, seller, 12, '')).toEqual(before);
    // ...until the age limit (60 s by default), then the page is the rows of its place again.
    t.clock.advance(61_000);
    expect(await pageIds(t, seller, 12, '')).toEqual(await expectedIds(t, seller, 12, order));
    expect(await pageIds(t, seller, 12, '')).not.toEqual(before);
  });
});

describe('deep pages with LIST_CACHE_SECONDS=0', () => {
  it('are taken by OFFSET every time', async () => {
    const t = await createTestApp({ env: { LIST_CACHE_SECONDS: '0' } });
    try {
      const seller = await createSeller(t);
      await seed(t, seller);
      const order = 'created_at DESC, id DESC';
      expect(await pageIds(t, seller, 12, '')).toEqual(await expectedIds(t, seller, 12, order));
      const [lastOf11] = (await expectedIds(t, seller, 11, order)).slice(-1);
      await sql`UPDATE teardowns SET status = 'archived' WHERE id = ${lastOf11}::uuid`.execute(t.database.db);
      expect(await pageIds(t, seller, 12, '')).toEqual(await expectedIds(t, seller, 12, order));
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(backend() !== 'postgres')('deep pages on two instances', () => {
  it('a change made on one instance moves the pages the other serves', async () => {
    const database = await createPostgresDatabase();
    const shared = { url: database.url, drop: async () => {} };
    const a = await createTestApp({ postgres: shared });
    const b = await createTestApp({ postgres: shared });
    try {
      const seller = await createSeller(a);
      await seed(a, seller);
      const order = 'created_at DESC, id DESC';
      expect(await pageIds(a, seller, 12, '')).toEqual(await expectedIds(a, seller, 12, order));
      await createTeardown(b, seller);
      expect(await pageIds(a, seller, 12, '')).toEqual(await expectedIds(a, seller, 12, order));
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});
