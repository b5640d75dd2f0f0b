// GET /public/v1/events: paging, the types filter, resuming from the last cursor, validation,
// retention (410 cursor_expired) and organization isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPrincipal, createSeller, type Principal } from '../helpers/factories.js';
import { drainFeed, type EventsPageJson, eventsPage, eventsSince } from '../helpers/events.js';
import { createListing } from '../helpers/listings.js';
import { createTeardown, transition } from '../helpers/teardowns.js';

const DAY = 86_400_000;
const T0 = new Date('2026-03-10T12:00:00.000Z');

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clockStart: T0 });
});
afterAll(() => t.close());

const page = async (principal: Principal, query: Record<string, string | number> = {}) => {
  const res = await eventsPage(t, principal, query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as EventsPageJson;
};

describe('paging', () => {
  let seller: Principal;
  const ids: string[] = [];

  beforeAll(async () => {
    seller = await createSeller(t);
    for (let i = 0; i < 3; i++) ids.push((await createTeardown(t, seller)).teardown_id);
    expect((await transition(t, seller, ids[0], 'start_processing')).statusCode).toBe(200);
    ids.push((await createListing(t, seller)).id);
  });

  it('an organization without events answers an empty page with a cursor', async () => {
    const fresh = await createSeller(t);
    const body = await page(fresh);
    expect(body).toEqual({ items: [], next_cursor: expect.any(String), has_more: false });
    // That cursor is where the partner resumes: the next change comes after it.
    const td = await createTeardown(t, fresh);
    const next = await page(fresh, { after: body.next_cursor });
    expect(next.items.map((e) => [e.type, e.data.entity_id])).toEqual([['teardown.created', td.teardown_id]]);
  });

  it('pages oldest first, limit at a time, has_more exact, the cursor present on the last page', async () => {
    const first = await page(seller, { limit: 2 });
    expect(first.items.map((e) => e.type)).toEqual(['teardown.created', 'teardown.created']);
    expect(first.has_more).toBe(true);
    const second = await page(seller, { limit: 2, after: first.next_cursor });
    expect(second.items.map((e) => e.type)).toEqual(['teardown.created', 'teardown.status_changed']);
    expect(second.has_more).toBe(true);
    const third = await page(seller, { limit: 2, after: second.next_cursor });
    expect(third.items.map((e) => e.type)).toEqual(['listing.created']);
    expect(third.has_more).toBe(false);
    expect(third.next_cursor).toEqual(expect.any(String));
    expect([...first.items, ...second.items, ...third.items].map((e) => e.data.entity_id)).toEqual([
      ids[0],
      ids[1],
      ids[2],
      ids[0],
      ids[3],
    ]);
    // Exactly `limit` left: has_more is false on that page, not one page later.
    const exact = await page(seller, { limit: 3, after: first.next_cursor });
    expect(exact.items).toHaveLength(3);
    expect(exact.has_more).toBe(false);

    // Resuming from the last page's cursor: nothing yet, the same cursor back; then the next change.
    const idle = await page(seller, { after: third.next_cursor });
    expect(idle).toEqual({ items: [], next_cursor: third.next_cursor, has_more: false });
    expect((await transition(t, seller, ids[1], 'archive')).statusCode).toBe(200);
    const resumed = await page(seller, { after: third.next_cursor });
    expect(resumed.items.map((e) => [e.type, e.data.entity_id, e.data.previous_status])).toEqual([
      ['teardown.status_changed', ids[1], 'active_starting'],
    ]);
    expect(resumed.has_more).toBe(false);
    expect(resumed.items[0]).toEqual({
      id: expect.any(String),
      type: 'teardown.status_changed',
      created_at: T0.toISOString(),
      data: expect.any(Object),
    });
  });

  it('the default limit is 50', async () => {
    const many = await createSeller(t);
    for (let i = 0; i < 52; i++) await createListing(t, many);
    const first = await page(many);
    expect(first.items).toHaveLength(50);
    expect(first.has_more).toBe(true);
    const rest = await page(many, { after: first.next_cursor });
    expect(rest.items).toHaveLength(2);
    expect(rest.has_more).toBe(false);
    expect(new Set([...first.items, ...rest.items].map((e) => e.id)).size).toBe(52);
  });

  it('types filters the page; the cursor still moves past the events left out', async () => {
    const all = (await drainFeed(t, seller)).events;
    const statusChanges = await page(seller, { types: 'teardown.status_changed, listing.status_changed' });
    expect(statusChanges.items.map((e) => e.id)).toEqual(all.filter((e) => e.type.endsWith('.status_changed')).map((e) => e.id));
    expect(statusChanges.has_more).toBe(false);
    // Paged one at a time, has_more says whether another matching event exists.
    const one = await page(seller, { types: 'teardown.status_changed', limit: 1 });
    expect(one.items).toHaveLength(1);
    expect(one.has_more).toBe(true);
    // No listing.deleted at all: an empty page whose cursor is past everything committed.
    const none = await page(seller, { types: 'listing.deleted' });
    expect(none.items).toEqual([]);
    const td = await createTeardown(t, seller);
    const after = await page(seller, { after: none.next_cursor });
    expect(after.items.map((e) => [e.type, e.data.entity_id])).toEqual([['teardown.created', td.teardown_id]]);
  });

  it('any authenticated key of the organization may read it, whatever its capabilities', async () => {
    const reader = await createPrincipal(t, { orgId: seller.orgId, capabilities: [] });
    const body = await page(reader, { limit: 100 });
    expect(body.items.length).toBeGreaterThan(0);
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/events', headers: { 'x-organization-id': seller.orgId } });
    expect(res.statusCode).toBe(401);
  });
});

describe('validation', () => {
  let seller: Principal;
  beforeAll(async () => {
    seller = await createSeller(t);
    await createTeardown(t, seller);
  });

  const refused = async (query: Record<string, string | number>) => {
    const res = await eventsPage(t, seller, query);
    expect(res.statusCode, res.body).toBe(422);
    return res.json().detail as { type: string; loc: (string | number)[]; msg: string }[];
  };

  it.each([['garbage'], ['ZTEuMDAwMDAwMDAuMQ'], ['e1.x.1'], [''], [Buffer.from('e1.00000000.-1').toString('base64url')]])(
    'a malformed cursor (%s) is a 422 at query.after',
    async (after) => {
      const detail = await refused({ after });
      expect(detail.map((d) => d.loc)).toEqual([['query', 'after']]);
    },
  );

  it('an unknown type is a 422 at query.types', async () => {
    const detail = await refused({ types: 'teardown.created,teardown.exploded' });
    expect(detail).toEqual([expect.objectContaining({ type: 'literal_error', loc: ['query', 'types'] })]);
  });

  it.each([[0], [101], ['ten'], [1.5]])('limit %s is a 422 at query.limit', async (limit) => {
    const detail = await refused({ limit });
    expect(detail.map((d) => d.loc)).toEqual([['query', 'limit']]);
  });

  it('a cursor ahead of the feed is refused', async () => {
    const { next_cursor } = await page(seller);
    const text = Buffer.from(next_cursor, 'base64url').toString();
    const ahead = Buffer.from(text.replace(/\.(\d+)$/, (_m, n) => `.${Number(n) + 5}`)).toString('base64url');
    const detail = await refused({ after: ahead });
    expect(detail.map((d) => d.loc)).toEqual([['query', 'after']]);
  });
});

describe('organization isolation', () => {
  it("never shows another organization's events, and refuses its cursor", async () => {
    const a = await createSeller(t);
    const b = await createSeller(t);
    const fromB = (await page(b)).next_cursor;
    const td = await createTeardown(t, a);
    await createListing(t, a);
    const aFeed = await drainFeed(t, a);
    expect(aFeed.events.map((e) => e.data.entity_id)).toContain(td.teardown_id);
    expect((await page(b, { after: fromB })).items).toEqual([]);
    expect((await drainFeed(t, b)).events).toEqual([]);
    const res = await eventsPage(t, b, { after: aFeed.cursor });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ loc: ['query', 'after'], msg: expect.stringContaining('another organization') }),
    ]);
  });
});

describe('retention', () => {
  it('purges events past EVENT_RETENTION_DAYS; an older cursor answers 410 cursor_expired', async () => {
    const seller = await createSeller(t);
    const start = (await page(seller)).next_cursor;
    t.clock.set(new Date(T0.getTime() + 1 * DAY));
    const old = await createTeardown(t, seller);
    const afterOld = (await page(seller, { after: start })).next_cursor;
    t.clock.set(new Date(T0.getTime() + 20 * DAY));
    const young = await createTeardown(t, seller);
    const beforeYoung = afterOld;

    t.clock.set(new Date(T0.getTime() + 32 * DAY));
    const run = await t.admin('POST', '/admin/v1/jobs/run');
    expect(run.statusCode).toBe(200);
    expect(run.json().purged_events).toBeGreaterThanOrEqual(1);

    const expired = await eventsPage(t, seller, { after: start });
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toEqual({ detail: { error_code: 'cursor_expired', message: expect.any(String) } });
    // A cursor at the last purged event lost nothing: it still reads on.
    const kept = await page(seller, { after: beforeYoung });
    expect(kept.items.map((e) => e.data.entity_id)).toEqual([young.teardown_id]);
    // Without a cursor the feed starts at the oldest event kept.
    const fromStart = await drainFeed(t, seller);
    expect(fromStart.events.map((e) => e.data.entity_id)).toEqual([young.teardown_id]);
    expect(fromStart.events.map((e) => e.data.entity_id)).not.toContain(old.teardown_id);

    // Past the young one's retention too, every event is gone; the latest cursor still resumes.
    t.clock.set(new Date(T0.getTime() + 60 * DAY));
    expect((await t.admin('POST', '/admin/v1/jobs/run')).statusCode).toBe(200);
    expect((await eventsPage(t, seller, { after: beforeYoung })).statusCode).toBe(410);
    const empty = await page(seller, { after: fromStart.cursor });
    expect(empty).toEqual({ items: [], next_cursor: fromStart.cursor, has_more: false });
    expect(await eventsSince(t, seller)).toEqual({ events: [], cursor: fromStart.cursor });
  });
});
