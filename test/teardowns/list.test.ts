import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns } from '../helpers/teardowns.js';

let t: TestApp;
let seller: Principal;
let other: Principal;

interface Fixture {
  key: string;
  asset_type: string;
  status: string;
  msn: string | null;
  tail_number: string | null;
  country: string;
  start_date: string;
  created_at: string;
  description: string | null;
  vocabulary: Record<string, string>;
  id?: string;
}

// One organization's teardowns, chosen so that every filter and every sort column has something to separate.
const fixtures: Fixture[] = [
  {
    key: 'A',
    asset_type: 'aircraft',
    status: 'active_starting',
    msn: 'MSN-100',
    tail_number: 'F-AAAA',
    country: 'FR',
    start_date: '2026-01-05',
    created_at: '2026-01-01T00:00:00.000Z',
    description: 'Wide_body 100% parts',
    vocabulary: { aircraft_type: 'A320-200' },
  },
  {
    key: 'B',
    asset_type: 'aircraft',
    status: 'active_in_process',
    msn: 'MSN-200',
    tail_number: 'N200XX',
    country: 'US',
    start_date: '2026-01-03',
    created_at: '2026-01-02T00:00:00.000Z',
    description: null,
    vocabulary: { aircraft_type: '737-800' },
  },
  {
    key: 'C',
    asset_type: 'engine',
    status: 'active_completed',
    msn: 'ESN-300',
    tail_number: null,
    country: 'DE',
    start_date: '2026-01-04',
    created_at: '2026-01-03T00:00:00.000Z',
    description: 'engine core',
    vocabulary: { engine_model: 'CFM56-5B' },
  },
  {
    key: 'D',
    asset_type: 'engine',
    status: 'draft',
    msn: 'ESN-400',
    tail_number: null,
    country: 'GB',
    start_date: '2026-01-01',
    created_at: '2026-01-04T00:00:00.000Z',
    description: null,
    vocabulary: { engine_model: 'V2500-A5' },
  },
  {
    key: 'E',
    asset_type: 'aircraft',
    status: 'suspended',
    msn: null,
    tail_number: null,
    country: 'FR',
    start_date: '2026-01-02',
    created_at: '2026-01-05T00:00:00.000Z',
    description: null,
    vocabulary: { aircraft_type: 'A320-200' },
  },
  {
    key: 'F',
    asset_type: 'aircraft',
    status: 'archived',
    msn: 'MSN-600',
    tail_number: null,
    country: 'IE',
    start_date: '2026-01-06',
    created_at: '2026-01-06T00:00:00.000Z',
    description: null,
    vocabulary: { aircraft_type: 'A320-200' },
  },
  {
    key: 'G',
    asset_type: 'apu',
    status: 'active_starting',
    msn: 'APU-700',
    tail_number: null,
    country: 'ES',
    start_date: '2026-01-07',
    created_at: '2026-01-07T00:00:00.000Z',
    description: null,
    vocabulary: { apu_model: '131-9A' },
  },
  {
    key: 'H',
    asset_type: 'landing_gear',
    status: 'draft',
    msn: 'LG-800',
    tail_number: null,
    country: 'IT',
    start_date: '2026-01-07',
    created_at: '2026-01-08T00:00:00.000Z',
    description: null,
    vocabulary: { landing_gear_type: 'A320 Main Landing Gear' },
  },
];
const byKey = (key: string) => fixtures.find((f) => f.key === key) as Fixture;
const keyOf = (id: string) => fixtures.find((f) => f.id === id)?.key ?? `?${id}`;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
  other = await createSeller(t);
  const ids = await importTeardowns(
    t,
    seller,
    fixtures.map(({ key: _key, id: _id, vocabulary, ...item }) => ({ ...item, ...vocabulary, location: 'Somewhere' })),
  );
  ids.forEach((id, i) => {
    fixtures[i].id = id;
  });
  await createTeardown(t, other, { msn: 'MSN-OTHER' });
});
afterAll(async () => {
  await t.close();
});

const list = (query = '', principal = seller) =>
  t.app.inject({ method: 'GET', url: `/public/v1/teardowns${query}`, headers: principal.headers });
const keys = async (query: string) => {
  const res = await list(query);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().items as { id: string }[]).map((i) => keyOf(i.id));
};

describe('GET /teardowns: shape and scope', () => {
  it('answers the list item shape with the legacy names', async () => {
    const res = await list('?search=MSN-100');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        {
          id: byKey('A').id,
          org_id: seller.orgId,
          asset_type: 'aircraft',
          aircraft_type: {
            id: expect.any(String),
            name: 'A320-200',
            manufacturer: 'Airbus',
            category: 'Narrowbody',
            is_active: true,
            created_at: expect.any(String),
          },
          msn: 'MSN-100',
          registration: 'F-AAAA',
          status: 'active_starting',
          teardown_status_label: 'Starting',
          location: 'Somewhere',
          location_country: 'FR',
          description: 'Wide_body 100% parts',
          published_at: expect.any(String),
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: expect.any(String),
        },
      ],
      total: 1,
      page: 1,
      per_page: 20,
      pages: 1,
    });
  });

  it('shows aircraft_type null on engine and legacy rows', async () => {
    const items = (await list('?search=ESN-300')).json().items;
    expect(items[0].aircraft_type).toBeNull();
  });

  it('lists every status except archived by default, legacy types included, newest first', async () => {
    expect(await keys('')).toEqual(['H', 'G', 'E', 'D', 'C', 'B', 'A']);
  });

  it("lists only the caller's organization", async () => {
    const res = await list('', other);
    expect(res.json().total).toBe(1);
    expect(res.json().items[0].msn).toBe('MSN-OTHER');
    expect(await keys('?search=MSN-OTHER')).toEqual([]);
  });

  it('ignores unknown query parameters', async () => {
    expect(await keys('?created_after=2026-01-01&foo=bar')).toHaveLength(7);
  });
});

describe('GET /teardowns: filters', () => {
  it.each([
    ['archived', ['F']],
    ['draft,suspended', ['H', 'E', 'D']],
    [' draft , archived ', ['H', 'F', 'D']],
    ['active_starting,active_in_process,active_completed', ['G', 'C', 'B', 'A']],
  ])('filters on status=%j', async (status, expected) => {
    expect(await keys(`?status=${encodeURIComponent(status)}`)).toEqual(expected);
  });

  it.each(['active', 'draft,bogus', 'Starting', 'draft,,suspended'])(
    'refuses status=%j with 422 at loc [query, status]',
    async (status) => {
      const res = await list(`?status=${encodeURIComponent(status)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([expect.objectContaining({ type: 'literal_error', loc: ['query', 'status'], input: status })]);
    },
  );

  it.each([
    ['aircraft', ['E', 'B', 'A']],
    ['engine', ['D', 'C']],
  ])('filters on asset_type=%s', async (assetType, expected) => {
    expect(await keys(`?asset_type=${assetType}`)).toEqual(expected);
  });

  it.each(['apu', 'landing_gear', 'parts'])('refuses asset_type=%s with literal_error', async (assetType) => {
    const res = await list(`?asset_type=${assetType}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        type: 'literal_error',
        loc: ['query', 'asset_type'],
        msg: "Input should be 'aircraft' or 'engine'",
        input: assetType,
        ctx: { expected: "'aircraft' or 'engine'" },
      },
    ]);
  });

  it('filters on aircraft_type by name, case-insensitively', async () => {
    expect(await keys('?aircraft_type=a320-200')).toEqual(['E', 'A']);
  });

  it('filters on engine_model by name, case-insensitively', async () => {
    expect(await keys('?engine_model=%20cfm56-5b%20')).toEqual(['C']);
  });

  it.each([
    ['aircraft_type', 'A999'],
    ['engine_model', 'XYZ-1'],
  ])('answers 400 unknown_vocabulary for %s=%s', async (field, value) => {
    const res = await list(`?${field}=${value}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatchObject({ error_code: 'unknown_vocabulary', field, value, valid_values: expect.any(Array) });
  });

  it.each([
    ['fr', ['E', 'A']],
    ['R', ['E', 'A']],
    ['%', []],
    ['_', []],
  ])('matches country=%j as a literal case-insensitive substring', async (country, expected) => {
    expect(await keys(`?country=${encodeURIComponent(country)}`)).toEqual(expected);
  });

  it.each([
    ['msn-', ['B', 'A']],
    ['n200x', ['B']],
    ['CORE', ['C']],
    ['100%', ['A']],
    ['%', ['A']],
    ['_', ['A']],
    ['e_b', ['A']],
    ['zzz', []],
    ['\\', []],
  ])('matches search=%j over msn, registration and description', async (search, expected) => {
    expect(await keys(`?search=${encodeURIComponent(search)}`)).toEqual(expected);
  });

  it('combines filters', async () => {
    expect(await keys('?asset_type=aircraft&country=fr&status=suspended')).toEqual(['E']);
  });

  it('answers pages 0 when nothing matches', async () => {
    expect((await list('?search=nothing-matches')).json()).toEqual({ items: [], total: 0, page: 1, per_page: 20, pages: 0 });
  });
});

describe('GET /teardowns: sorting', () => {
  const visible = () => fixtures.filter((f) => f.status !== 'archived');
  const columns: Record<string, keyof Fixture> = {
    created_at: 'created_at',
    msn: 'msn',
    status: 'status',
    location_country: 'country',
    teardown_start_date: 'start_date',
    asset_type: 'asset_type',
  };
  // PostgreSQL order: NULL sorts after every value ascending; ties fall back to the id.
  const ascending = (column: keyof Fixture) =>
    [...visible()]
      .sort((a, b) => {
        const x = a[column] as string | null;
        const y = b[column] as string | null;
        if (x !== y) {
          if (x === null) return 1;
          if (y === null) return -1;
          return x < y ? -1 : 1;
        }
        return (a.id as string) < (b.id as string) ? -1 : 1;
      })
      .map((f) => f.key);

  for (const [sortBy, column] of Object.entries(columns)) {
    it(`sorts on ${sortBy} ascending, ties broken on id`, async () => {
      expect(await keys(`?sort_by=${sortBy}&sort_dir=asc`)).toEqual(ascending(column));
    });
    it(`sorts on ${sortBy} descending, the exact reverse`, async () => {
      expect(await keys(`?sort_by=${sortBy}&sort_dir=desc`)).toEqual(ascending(column).reverse());
    });
  }

  it('sorts on created_at descending by default', async () => {
    expect(await keys('')).toEqual(ascending('created_at').reverse());
  });

  it.each([
    ['sort_by', 'start_date'],
    ['sort_dir', 'up'],
  ])('refuses %s=%s with literal_error', async (name, value) => {
    const res = await list(`?${name}=${value}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type: 'literal_error', loc: ['query', name], input: value })]);
  });
});

describe('GET /teardowns: pagination', () => {
  it('walks every page without overlap or gap', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await list(`?per_page=2&page=${page}&sort_by=asset_type&sort_dir=asc`);
      expect(res.json()).toMatchObject({ total: 7, page, per_page: 2, pages: 4 });
      seen.push(...(res.json().items as { id: string }[]).map((i) => keyOf(i.id)));
    }
    expect(seen).toEqual(await keys('?sort_by=asset_type&sort_dir=asc'));
  });

  it('answers an empty page past the end, with the total', async () => {
    expect((await list('?per_page=5&page=3')).json()).toEqual({ items: [], total: 7, page: 3, per_page: 5, pages: 2 });
    expect((await list('?page=1000000000000000')).json()).toMatchObject({ items: [], total: 7 });
  });

  it.each([
    ['per_page=0', 'per_page', 'greater_than_equal'],
    ['per_page=101', 'per_page', 'less_than_equal'],
    ['page=0', 'page', 'greater_than_equal'],
    ['page=-1', 'page', 'greater_than_equal'],
    ['page=abc', 'page', 'int_parsing'],
    ['per_page=2.5', 'per_page', 'int_parsing'],
  ])('refuses %s with 422 at loc [query, %s]', async (query, name, type) => {
    const res = await list(`?${query}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([expect.objectContaining({ type, loc: ['query', name] })]);
  });

  it('accepts per_page 1 and 100', async () => {
    expect((await list('?per_page=1')).json()).toMatchObject({ per_page: 1, pages: 7, total: 7 });
    expect((await list('?per_page=100')).json()).toMatchObject({ per_page: 100, pages: 1 });
  });
});
