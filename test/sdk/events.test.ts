// The event-feed iterators: first against a stand-in feed of the document's shape, whose pages the
// test controls, so that the cursor rules are pinned exactly; then against the real service's
// GET /public/v1/events.
import {
  CursorExpired,
  createClient,
  type EventType,
  type FeedEvent,
  type FetchLike,
  ValidationError,
} from '@aviation-marketplace/partner-sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPrincipal } from '../helpers/factories.js';
import { aircraft, type SdkHarness, startSdkHarness } from './harness.js';

const ORG = '11111111-1111-4111-8111-111111111111';

/** A feed of `events` served `limit` (default 2) at a time; the cursor is the index, base64-wrapped. */
function standInFeed(events: FeedEvent[], options: { expiredBelow?: number } = {}) {
  const requests: URL[] = [];
  const fetch: FetchLike = async (request) => {
    const url = new URL(request.url);
    requests.push(url);
    if (request.headers.get('authorization') !== 'Bearer svc_live_test' || request.headers.get('x-organization-id') !== ORG) {
      return Response.json({ detail: { error_code: 'invalid_api_key', message: 'no' } }, { status: 401 });
    }
    const after = url.searchParams.get('after');
    const start = after === null ? 0 : Number(atob(after));
    if (start < (options.expiredBelow ?? 0)) {
      return Response.json({ detail: { error_code: 'cursor_expired', message: 'Cursor too old' } }, { status: 410 });
    }
    const types = url.searchParams.get('types')?.split(',');
    const limit = Number(url.searchParams.get('limit') ?? 2);
    const matching = events.map((e, i) => ({ e, i })).filter(({ e, i }) => i >= start && (!types || types.includes(e.type)));
    const page = matching.slice(0, limit);
    const next = page.length > 0 ? (page[page.length - 1]?.i ?? 0) + 1 : events.length;
    return Response.json({ items: page.map(({ e }) => e), next_cursor: btoa(String(next)), has_more: matching.length > limit });
  };
  return { fetch, requests };
}

const event = (n: number, type: EventType = 'teardown.updated'): FeedEvent => ({
  id: `evt_${n}`,
  type,
  created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
  data: { entity_id: `t${n}`, object: { teardown_id: `t${n}` } },
});

const clientOf = (fetch: FetchLike) => createClient({ baseUrl: 'http://feed.test', apiKey: 'svc_live_test', organizationId: ORG, fetch });

describe('against a stand-in feed of the document\'s shape', () => {
  test('iterate yields every event once across pages, then stops; cursor resumes after the last', async () => {
    const events = [1, 2, 3, 4, 5].map((n) => event(n));
    const feed = standInFeed(events);
    const client = clientOf(feed.fetch);
    const stream = client.events.iterate();
    const seen: string[] = [];
    for await (const e of stream) seen.push(e.id);
    expect(seen).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    expect(stream.cursor).toBe(btoa('5'));

    events.push(event(6));
    const resumed: string[] = [];
    for await (const e of client.events.iterate({ after: stream.cursor })) resumed.push(e.id);
    expect(resumed).toEqual(['evt_6']);
  });

  test('cursor moves past a page only once the loop asked for the next event: a break re-delivers at most that page', async () => {
    const feed = standInFeed([1, 2, 3, 4, 5].map((n) => event(n)));
    const stream = clientOf(feed.fetch).events.iterate();
    for await (const e of stream) if (e.id === 'evt_3') break; // evt_3 opens the second page
    expect(stream.cursor).toBe(btoa('2'));
    const again: string[] = [];
    for await (const e of clientOf(feed.fetch).events.iterate({ after: stream.cursor })) again.push(e.id);
    expect(again).toEqual(['evt_3', 'evt_4', 'evt_5']);
  });

  test('types and limit are sent as the feed expects; list reads one page', async () => {
    const feed = standInFeed([event(1, 'teardown.created'), event(2), event(3, 'listing.deleted')]);
    const page = await clientOf(feed.fetch).events.list({ types: ['teardown.created', 'listing.deleted'], limit: 10 });
    expect(page.items.map((e) => e.type)).toEqual(['teardown.created', 'listing.deleted']);
    expect(page.has_more).toBe(false);
    expect(feed.requests[0]?.searchParams.get('types')).toBe('teardown.created,listing.deleted');
    expect(feed.requests[0]?.searchParams.get('limit')).toBe('10');
  });

  test('410 cursor_expired is a CursorExpired error', async () => {
    const feed = standInFeed([event(1)], { expiredBelow: 1 });
    await expect(clientOf(feed.fetch).events.list({ after: btoa('0') })).rejects.toBeInstanceOf(CursorExpired);
  });

  test('follow keeps polling after the feed is drained and ends quietly when aborted', async () => {
    const events = [event(1)];
    const feed = standInFeed(events);
    const controller = new AbortController();
    const stream = clientOf(feed.fetch).events.follow({ pollIntervalMs: 20, signal: controller.signal });
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.id);
      if (e.id === 'evt_1') setTimeout(() => events.push(event(2)), 50);
      if (e.id === 'evt_2') controller.abort();
    }
    expect(seen).toEqual(['evt_1', 'evt_2']);
    expect(feed.requests.length).toBeGreaterThan(2);
    expect(stream.cursor).toBe(btoa('2'));
  });
});

describe('against the real service', () => {
  const T0 = new Date('2026-03-10T12:00:00.000Z');
  const DAY = 86_400_000;
  let h: SdkHarness;
  beforeAll(async () => {
    h = await startSdkHarness({ clockStart: T0 });
  });
  afterAll(() => h.close());

  test('a partner syncs from the feed: every change once, in order, and resumes from the stored cursor', async () => {
    const client = h.client();
    const { data, etag } = await client.teardowns.create({ ...aircraft, msn: 'FEED-1' });
    await client.teardowns.update(data.teardown_id, { description: 'LLPs sold' }, { ifMatch: etag });
    await client.teardowns.transition(data.teardown_id, 'start_processing');

    const mine = async (after?: string) => {
      const stream = client.events.iterate({ after, types: ['teardown.created', 'teardown.updated', 'teardown.status_changed'] });
      const types: string[] = [];
      for await (const e of stream) if (e.data.entity_id === data.teardown_id) types.push(e.type);
      return { types, cursor: stream.cursor };
    };
    // The feed may hold back the newest events for a moment (commit order): poll briefly.
    let first = await mine();
    for (let i = 0; i < 50 && first.types.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      first = await mine();
    }
    expect(first.types).toEqual(['teardown.created', 'teardown.updated', 'teardown.status_changed']);

    await client.teardowns.update(data.teardown_id, { description: 'APU sold' });
    let next = await mine(first.cursor);
    for (let i = 0; i < 50 && next.types.length < 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = await mine(first.cursor);
    }
    expect(next.types).toEqual(['teardown.updated']);
  });

  test('a malformed cursor, or one of another organization, is a ValidationError on query.after', async () => {
    const client = h.client();
    const malformed = await client.events.list({ after: 'not-a-cursor' }).catch((err: unknown) => err);
    expect(malformed).toBeInstanceOf(ValidationError);
    expect(malformed instanceof ValidationError && malformed.issues.map((i) => i.loc)).toEqual([['query', 'after']]);

    const other = await createPrincipal(h.t, { capabilities: ['seller'] });
    const foreignCursor = (await createClient({ baseUrl: h.baseUrl, apiKey: other.key, organizationId: other.orgId }).events.list())
      .next_cursor;
    await expect(client.events.list({ after: foreignCursor })).rejects.toBeInstanceOf(ValidationError);
  });

  test('a cursor whose events were purged by retention throws CursorExpired; a fresh start reads on', async () => {
    const client = h.client();
    const start = (await client.events.list()).next_cursor;
    h.t.clock.set(new Date(T0.getTime() + 1 * DAY));
    await client.teardowns.create({ ...aircraft, msn: 'FEED-OLD' });
    h.t.clock.set(new Date(T0.getTime() + 40 * DAY));
    const fresh = await client.teardowns.create({ ...aircraft, msn: 'FEED-NEW' });
    h.t.clock.set(new Date(T0.getTime() + 60 * DAY));
    expect((await h.t.admin('POST', '/admin/v1/jobs/run')).statusCode).toBe(200);

    const stream = client.events.iterate({ after: start });
    const expired = await (async () => {
      for await (const _ of stream) return undefined;
      return undefined;
    })().catch((err: unknown) => err);
    expect(expired).toBeInstanceOf(CursorExpired);
    expect(expired instanceof CursorExpired && expired.errorCode).toBe('cursor_expired');

    const ids: string[] = [];
    for await (const e of client.events.iterate({ types: ['teardown.created'] })) ids.push(e.data.entity_id);
    expect(ids).toContain(fresh.data.teardown_id);
  });
});
