// updated_since and sort_by=updated_at on GET /teardowns and GET /sales-lease-exchange.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';
import { createTeardown } from '../helpers/teardowns.js';

const T0 = new Date('2026-03-10T12:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

let t: TestApp;
let seller: Principal;

beforeAll(async () => {
  t = await createTestApp({ clockStart: T0 });
  seller = await createSeller(t);
});
afterAll(() => t.close());

const list = (path: string, query: string) => t.app.inject({ method: 'GET', url: `/public/v1/${path}?${query}`, headers: seller.headers });

describe.each([
  ['teardowns', 'teardowns', (r: Record<string, unknown>) => String(r.teardown_id)],
  ['listings', 'sales-lease-exchange', (r: Record<string, unknown>) => String(r.id)],
] as const)('updated_since on %s', (_name, path, idOf) => {
  const ids: string[] = [];

  beforeAll(async () => {
    for (const minute of [0, 10, 20]) {
      t.clock.set(at(minute));
      const created = path === 'teardowns' ? await createTeardown(t, seller) : await createListing(t, seller);
      ids.push(idOf(created));
    }
    // The oldest changes last.
    t.clock.set(at(30));
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/${path}/${ids[0]}`,
      headers: seller.headers,
      payload: { description: 'Changed' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('keeps the records changed at or after the instant, and sorts by updated_at', async () => {
    const res = await list(path, `updated_since=${encodeURIComponent(at(10).toISOString())}&sort_by=updated_at&sort_dir=asc`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.map((i: { id: string }) => i.id)).toEqual([ids[1], ids[2], ids[0]]);
    expect(res.json().items.map((i: { updated_at: string }) => i.updated_at)).toEqual([at(10), at(20), at(30)].map((d) => d.toISOString()));
    expect(res.json().total).toBe(3);

    const desc = await list(path, 'sort_by=updated_at&sort_dir=desc');
    expect(
      desc
        .json()
        .items.map((i: { id: string }) => i.id)
        .slice(0, 3),
    ).toEqual([ids[0], ids[2], ids[1]]);
  });

  it('takes any offset: the same instant written in another zone', async () => {
    // 12:20 UTC is 14:20+02:00.
    const res = await list(path, `updated_since=${encodeURIComponent('2026-03-10T14:20:00+02:00')}&sort_by=updated_at&sort_dir=asc`);
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[0]]);
    const later = await list(path, `updated_since=${encodeURIComponent(at(31).toISOString())}`);
    expect(later.json()).toMatchObject({ items: [], total: 0 });
  });

  it.each([['2026-03-10T12:00:00'], ['2026-03-10'], ['yesterday'], ['2026-13-10T12:00:00Z'], ['0000-01-01T00:00:00Z']])(
    'refuses %s with a 422 at query.updated_since',
    async (value) => {
      const res = await list(path, `updated_since=${encodeURIComponent(value)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail.map((d: { loc: unknown }) => d.loc)).toEqual([['query', 'updated_since']]);
    },
  );
});
