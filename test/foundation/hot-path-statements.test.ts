// How many statements the hot reads send once their key and vocabulary are cached: the round trips
// bench/RESULTS.md's get-by-id and list figures assume. Get by id is one statement, as on the
// bench's floor; a statement added to these paths shows here before it shows as a slower bench.
// Counted on the app's own pool (DatabaseHandle.queryObservers), with every background loop off:
// jobs, maintenance and the webhook worker (WEBHOOK_POLL_MS=0).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';
import { createTeardown } from '../helpers/teardowns.js';

let t: TestApp;
let seller: Principal;
let teardownId: string;
let listingId: string;
let statements = 0;
const countStatement = () => {
  statements++;
};

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_POLL_MS: '0' } });
  seller = await createSeller(t);
  teardownId = (await createTeardown(t, seller)).teardown_id;
  listingId = (await createListing(t, seller)).id;
  t.database.queryObservers.add(countStatement);
});
afterAll(async () => {
  t.database.queryObservers.delete(countStatement);
  await t.close();
});

/** Waits until the pool has been quiet for 50 ms (a fire-and-forget write of an earlier request landed). */
async function settled(): Promise<void> {
  let seen = -1;
  while (seen !== statements) {
    seen = statements;
    await sleep(50);
  }
}

interface Sent {
  headers?: Record<string, string>;
  /** What every one of the requests must answer. */
  status?: number;
  times?: number;
}

/** The statements of `times` requests sent one after the other, after a first one that warmed the caches. */
async function statementsPerRequest(url: string, { headers = {}, status = 200, times = 5 }: Sent = {}): Promise<number> {
  const get = async () => {
    const res = await t.app.inject({ method: 'GET', url, headers: { ...seller.headers, ...headers } });
    expect(res.statusCode, res.body).toBe(status);
  };
  await get();
  await settled();
  const before = statements;
  for (let i = 0; i < times; i++) await get();
  return (statements - before) / times;
}

describe('statements per request once the key and the vocabulary are cached', () => {
  it('get teardown by id: one', async () => {
    expect(await statementsPerRequest(`/public/v1/teardowns/${teardownId}`)).toBe(1);
  });

  it('get teardown by id answered 304 for its ETag: one', async () => {
    const etag = String(
      (await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${teardownId}`, headers: seller.headers })).headers.etag,
    );
    expect(await statementsPerRequest(`/public/v1/teardowns/${teardownId}`, { headers: { 'if-none-match': etag }, status: 304 })).toBe(1);
  });

  it('get listing by id: one', async () => {
    expect(await statementsPerRequest(`/public/v1/sales-lease-exchange/${listingId}`)).toBe(1);
  });

  // A list is its page and its total, run at once. The total of an unfiltered list is the sum of the
  // per-status counters (teardown_counts); a filtered one is reused while the organization's event
  // sequence has not moved (events/exact-totals.ts), which one primary-key read tells.
  it('list teardowns, page 1: two (the page, the counters row)', async () => {
    expect(await statementsPerRequest('/public/v1/teardowns')).toBe(2);
  });

  it('list teardowns with a search: two (the page, the event sequence behind the counted total)', async () => {
    expect(await statementsPerRequest('/public/v1/teardowns?search=A320')).toBe(2);
  });

  it('list listings: two (the page, the event sequence behind the counted total)', async () => {
    expect(await statementsPerRequest('/public/v1/sales-lease-exchange')).toBe(2);
  });
});
