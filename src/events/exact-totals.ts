// Exact list totals that are computed once per state of an organization's data. Counting the
// matches of a broad search walks every matching row: 640 ms for 464,000 matches in a
// 1,000,000-row organization, on every page a partner fetches, and under 50 concurrent requests
// the pool wait ran out (503). The page itself costs a fraction of a millisecond.
//
// Why a reused total is still exact: every committed change of an organization's teardowns or
// listings appends an event in its own transaction, and that append increments the organization's
// `event_streams.last_seq` (events/log.ts). Two snapshots that read the same `last_seq` therefore
// see the same rows of that organization, so a total counted at sequence s is the total of any later
// snapshot that still reads s. A request reads the sequence (one primary-key row), and reuses a
// total counted at that sequence — cached, or being counted by a concurrent request — and counts
// otherwise, reading the sequence in the same statement as the count (one snapshot).
//
// An organization without a stream row has never had a change through the service: its sequence is
// taken as 0, and its first change creates the row with 1. Rows written behind the service's back
// (plain SQL) move no sequence; a cached total then lives at most `maxAgeMs` (documented in
// docs/operations.md). The cache is per instance and bounded; instances agree because each checks
// the sequence in PostgreSQL on every request.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from '../db/schema.js';

/** A count together with the organization's event sequence read in the same statement. */
export interface CountAtSequence {
  total: number;
  seq: string;
}

export interface ExactTotals {
  /**
   * The exact number of rows `count` finds for this organization and key (the request's filters).
   * `count` must read `sequenceOf(orgId)` in the same statement as its count.
   */
  total(orgId: string, key: string, count: () => Promise<CountAtSequence>): Promise<number>;
}

export interface ExactTotalsOptions {
  db: Kysely<DB>;
  clock: Clock;
  /** Entries kept per instance, least recently used first out. */
  maxEntries: number;
  /** A bound on how stale a total can be after writes that bypass the service. */
  maxAgeMs: number;
}

/** The organization's event sequence as a scalar sub-select, for the statement that counts. */
export const sequenceOf = (db: Kysely<DB>, orgId: string) => db.selectFrom('event_streams').select('last_seq').where('org_id', '=', orgId);

/** Normalizes what the drivers answer for bigint (string on pg, number or bigint on PGlite); no row is 0. */
export const sequenceText = (value: unknown): string => (value === null || value === undefined ? '0' : String(value));

interface Entry extends CountAtSequence {
  countedAt: number;
}

export function createExactTotals(options: ExactTotalsOptions): ExactTotals {
  const { db, clock, maxEntries, maxAgeMs } = options;
  const cache = new Map<string, Entry>();
  const counting = new Map<string, Promise<CountAtSequence>>();

  const fresh = (entry: Entry | undefined, seq: string): entry is Entry =>
    entry !== undefined && entry.seq === seq && clock.now().getTime() - entry.countedAt <= maxAgeMs;

  function remember(cacheKey: string, entry: Entry) {
    // Re-inserted, so the Map's order is least recently used first.
    cache.delete(cacheKey);
    cache.set(cacheKey, entry);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
  }

  async function countNow(cacheKey: string, count: () => Promise<CountAtSequence>): Promise<CountAtSequence> {
    const pending = count().then((counted) => ({ total: Number(counted.total), seq: sequenceText(counted.seq) }));
    counting.set(cacheKey, pending);
    try {
      const counted = await pending;
      remember(cacheKey, { ...counted, countedAt: clock.now().getTime() });
      return counted;
    } finally {
      if (counting.get(cacheKey) === pending) counting.delete(cacheKey);
    }
  }

  async function currentSequence(orgId: string): Promise<string> {
    const row = await sequenceOf(db, orgId).executeTakeFirst();
    return sequenceText(row?.last_seq);
  }

  return {
    async total(orgId, key, count) {
      const cacheKey = `${orgId}\u0000${key}`;
      // Nothing to reuse: count at once, without reading the sequence first.
      if (!cache.has(cacheKey) && !counting.has(cacheKey)) return (await countNow(cacheKey, count)).total;
      const seq = await currentSequence(orgId);
      const cached = cache.get(cacheKey);
      if (fresh(cached, seq)) {
        remember(cacheKey, cached);
        return cached.total;
      }
      // A count a concurrent request started (looked up after the sequence read, so requests that
      // all found the cache stale share one); usable when it saw the sequence this request read.
      const pending = counting.get(cacheKey);
      if (pending) {
        const counted = await pending.catch(() => undefined);
        if (counted?.seq === seq) return counted.total;
      }
      return (await countNow(cacheKey, count)).total;
    },
  };
}
