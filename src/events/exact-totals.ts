// Exact list totals, counted once per state of an organization's data (sequenced-cache.ts says why
// a total counted at an event sequence is the total of any later snapshot at the same sequence).
// Counting the matches of a broad search walks every matching row: 640 ms for 464,000 matches in a
// 1,000,000-row organization, on every page a partner fetched, and under 50 concurrent requests the
// pool wait ran out (503), while the page itself cost a fraction of a millisecond.
//
// A request reads the sequence (one primary-key row) and reuses a total counted at that sequence,
// cached or being counted by a concurrent request; otherwise it counts, reading the sequence in the
// same statement as the count (one snapshot).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { createSequencedCache, currentSequence, type SequencedCacheOptions, sequenceText } from './sequenced-cache.js';

/** A count together with the organization's event sequence read in the same statement. */
export interface CountAtSequence {
  total: number;
  seq: string;
}

/** A count statement's row (`total`, and `seq` read by the same statement) as a CountAtSequence. */
export const countAtSequence = (row: { total: unknown; seq: unknown }): CountAtSequence => ({
  total: Number(row.total),
  seq: sequenceText(row.seq),
});

export interface ExactTotals {
  /**
   * The exact number of rows `count` finds for this organization and key (the request's filters).
   * `count` must read `sequenceOf(orgId)` in the same statement as its count.
   */
  total(orgId: string, key: string, count: () => Promise<CountAtSequence>): Promise<number>;
}

export function createExactTotals(db: Kysely<DB>, options: SequencedCacheOptions): ExactTotals {
  const cache = createSequencedCache<number>(options);
  const counting = new Map<string, Promise<CountAtSequence>>();

  async function countNow(cacheKey: string, count: () => Promise<CountAtSequence>): Promise<number> {
    const pending = count().then(countAtSequence);
    counting.set(cacheKey, pending);
    try {
      const counted = await pending;
      cache.set(cacheKey, counted.seq, counted.total);
      return counted.total;
    } finally {
      if (counting.get(cacheKey) === pending) counting.delete(cacheKey);
    }
  }

  return {
    async total(orgId, key, count) {
      const cacheKey = `${orgId}\u0000${key}`;
      // Nothing to reuse: count at once, without reading the sequence first.
      if (!cache.has(cacheKey) && !counting.has(cacheKey)) return countNow(cacheKey, count);
      const seq = await currentSequence(db, orgId);
      const cached = cache.get(cacheKey, seq);
      if (cached !== undefined) return cached;
      // A count a concurrent request started (looked up after the sequence read, so requests that
      // all found the cache stale share one); usable when it saw the sequence this request read.
      const pending = counting.get(cacheKey);
      if (pending) {
        const counted = await pending.catch(() => undefined);
        if (counted?.seq === seq) return counted.total;
      }
      return countNow(cacheKey, count);
    },
  };
}
