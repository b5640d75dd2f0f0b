// 8 writers commit in parallel (creates, PATCHes, transitions, on shared records) while a reader
// follows the feed from its start in small pages. The reader must see every event exactly once, in
// the order of their numbers, and each record's events in the order its versions were written.
// On PGlite the writes serialise; on PostgreSQL (TEST_BACKEND=postgres) they really interleave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { drainFeed, type EventJson, type EventsPageJson, eventsPage } from '../helpers/events.js';
import { createListing } from '../helpers/listings.js';
import { createTeardown } from '../helpers/teardowns.js';

const WRITERS = 8;
const WRITES_PER_WRITER = 25;
const TEARDOWN_ACTIONS = ['start_processing', 'complete', 'unpublish', 'submit', 'archive', 'restore'];
const LISTING_STATUSES = ['active', 'under_offer', 'sold', 'archived', 'draft'];

let t: TestApp;
let seller: Principal;

beforeAll(async () => {
  t = await createTestApp();
  seller = await createSeller(t);
});
afterAll(() => t.close());

/** A small seeded generator: the same run every time. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** One committed write: the record, the version it wrote (from the ETag) and what it answered. */
interface Write {
  entity: 'teardown' | 'listing';
  id: string;
  version: number;
  kind: 'created' | 'patched' | 'moved';
  body: Record<string, unknown>;
}

const versionOf = (etag: unknown) => Number(/^"(\d+)-/.exec(String(etag))?.[1]);

describe('the feed under concurrent writers', () => {
  it('sees every event exactly once, in number order, each record in version order', async () => {
    const teardowns: string[] = [];
    const listings: string[] = [];
    const writes: Write[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/public/v1/teardowns',
        headers: seller.headers,
        payload: {
          asset_type: 'engine',
          status: 'Starting',
          start_date: '2026-03-01',
          location: 'Shannon',
          country: 'IE',
          engine_model: 'CFM56-5B',
        },
      });
      teardowns.push(res.json().teardown_id);
      writes.push({
        entity: 'teardown',
        id: res.json().teardown_id,
        version: versionOf(res.headers.etag),
        kind: 'created',
        body: res.json(),
      });
      const listing = await createListing(t, seller);
      listings.push(listing.id);
      writes.push({ entity: 'listing', id: listing.id, version: 1, kind: 'created', body: listing });
    }

    async function writer(n: number) {
      const next = random(n + 1);
      const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)] as T;
      for (let i = 0; i < WRITES_PER_WRITER; i++) {
        const token = `w${n}-${i}`;
        const roll = next();
        if (roll < 0.1) {
          const td = await createTeardown(t, seller, { description: token });
          teardowns.push(td.teardown_id);
          writes.push({ entity: 'teardown', id: td.teardown_id, version: 1, kind: 'created', body: td });
        } else if (roll < 0.35) {
          const id = pick(teardowns);
          const res = await t.app.inject({
            method: 'PATCH',
            url: `/public/v1/teardowns/${id}`,
            headers: seller.headers,
            payload: { description: token },
          });
          expect(res.statusCode, res.body).toBe(200);
          writes.push({ entity: 'teardown', id, version: versionOf(res.headers.etag), kind: 'patched', body: res.json() });
        } else if (roll < 0.7) {
          const id = pick(teardowns);
          const res = await t.app.inject({
            method: 'POST',
            url: `/public/v1/teardowns/transition/${id}`,
            headers: seller.headers,
            payload: { action: pick(TEARDOWN_ACTIONS) },
          });
          // A move the current status refuses (400) writes nothing; archive of an archived record neither.
          if (res.statusCode === 200 && res.json().previous_status !== null) throw new Error('seller moves answer previous_status null');
          // An archive of an archived record answers 200 with the current version and writes
          // nothing: it is recorded here like a move and folded into it below.
          if (res.statusCode === 200)
            writes.push({ entity: 'teardown', id, version: versionOf(res.headers.etag), kind: 'moved', body: res.json() });
          else expect(res.statusCode, res.body).toBe(400);
        } else if (roll < 0.8) {
          const listing = await createListing(t, seller, { description: token });
          listings.push(listing.id);
          writes.push({ entity: 'listing', id: listing.id, version: 1, kind: 'created', body: listing });
        } else {
          const id = pick(listings);
          const payload = next() < 0.5 ? { title: token } : { status: pick(LISTING_STATUSES) };
          const res = await t.app.inject({
            method: 'PATCH',
            url: `/public/v1/sales-lease-exchange/${id}`,
            headers: seller.headers,
            payload,
          });
          expect(res.statusCode, res.body).toBe(200);
          writes.push({ entity: 'listing', id, version: versionOf(res.headers.etag), kind: 'patched', body: res.json() });
        }
      }
    }

    // The reader starts from the feed's start and follows next_cursor in pages of 3, until the
    // writers are done and a page read after that says nothing more is there.
    let writersDone = false;
    const seen: EventJson[] = [];
    async function reader() {
      let after: string | undefined;
      for (;;) {
        const doneBefore = writersDone;
        const res = await eventsPage(t, seller, { limit: 3, ...(after ? { after } : {}) });
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json() as EventsPageJson;
        seen.push(...page.items);
        after = page.next_cursor;
        if (doneBefore && !page.has_more) return;
        if (!page.has_more) await new Promise((resolve) => setImmediate(resolve));
      }
    }

    const reading = reader();
    await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
    writersDone = true;
    await reading;

    // Exactly once, and in number order: what the reader saw is the whole feed read at rest.
    const atRest = (await drainFeed(t, seller, { limit: 100 })).events;
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    expect(seen.map((e) => e.id)).toEqual(atRest.map((e) => e.id));
    expect(seen).toEqual(atRest);
    // One event per committed write, none for the refused ones (nor the no-op archives).
    // A no-op archive answers the version of the last write, which may be a PATCH: that one wins.
    const ordered = [...writes.filter((w) => w.kind === 'moved'), ...writes.filter((w) => w.kind !== 'moved')];
    const committed = new Map(ordered.map((w) => [`${w.id}:${w.version}`, w]));
    expect(seen).toHaveLength(committed.size);

    // Per record: its n-th event is the write of version n.
    const byRecord = new Map<string, EventJson[]>();
    for (const event of seen) byRecord.set(event.data.entity_id, [...(byRecord.get(event.data.entity_id) ?? []), event]);
    for (const write of committed.values()) {
      const event = byRecord.get(write.id)?.[write.version - 1];
      expect(event, `${write.entity} ${write.id} version ${write.version}`).toBeDefined();
      if (!event) continue;
      if (write.kind === 'created') {
        expect(event.type).toBe(`${write.entity}.created`);
        expect(event.data.object).toEqual(write.body);
      } else if (write.kind === 'patched') {
        // A PATCH answers the record after it: exactly the event's object.
        expect(event.data.object).toEqual(write.body);
      } else {
        expect(event.type).toBe('teardown.status_changed');
        expect(event.data.object.status).toBe(write.body.status);
      }
    }
    // And the chain holds: each event starts from the state the previous one left.
    for (const [id, events] of byRecord) {
      for (let i = 1; i < events.length; i++) {
        const previous = events[i - 1]?.data.object as Record<string, unknown>;
        const event = events[i] as EventJson;
        if (event.type.endsWith('.status_changed')) expect(event.data.previous_status, id).toBe(previous.status);
        else expect(event.data.object.status, id).toBe(previous.status);
        if (event.type === 'teardown.status_changed') expect(event.data.object.description, id).toBe(previous.description);
      }
      const path = events[0]?.type.startsWith('teardown') ? `teardowns/${id}` : `sales-lease-exchange/${id}`;
      const current = await t.app.inject({ method: 'GET', url: `/public/v1/${path}`, headers: seller.headers });
      expect(versionOf(current.headers.etag)).toBe(events.length);
      expect(events.at(-1)?.data.object).toEqual(current.json());
    }
  }, 120_000);
});
