// What a list may reuse from an earlier request of the same organization: an entry is kept with the
// organization's event sequence it was computed at, and is only handed out to a request that reads
// the same sequence. Every committed change of an organization's teardowns or listings appends an
// event in its own transaction, and that append increments `event_streams.last_seq` (events/log.ts),
// so two snapshots that read the same sequence see the same rows of that organization: an entry
// computed in one is right in the other. Used for counted totals (exact-totals.ts) and deep-page
// positions (teardowns/page-anchors.ts).
//
// An organization without a stream row has never had a change through the service: its sequence is
// taken as 0, and its first change creates the row with 1. Rows written behind the service's back
// (plain SQL) move no sequence, so an entry also expires after `maxAgeMs` (LIST_CACHE_SECONDS,
// documented in docs/operations.md). The cache is per instance and bounded, least recently used out;
// instances agree because each compares with the sequence in PostgreSQL on every use.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from '../db/schema.js';

/** The organization's event sequence, as a scalar sub-select for the statement whose result is kept. */
export const sequenceOf = (db: Kysely<DB>, orgId: string) => db.selectFrom('event_streams').select('last_seq').where('org_id', '=', orgId);

/** Normalizes what the drivers answer for bigint (string on pg, number or bigint on PGlite); no row is 0. */
export const sequenceText = (value: unknown): string => (value === null || value === undefined ? '0' : String(value));

/** The organization's current event sequence, on its own. */
export async function currentSequence(db: Kysely<DB>, orgId: string): Promise<string> {
  return sequenceText((await sequenceOf(db, orgId).executeTakeFirst())?.last_seq);
}

export interface SequencedCacheOptions {
  clock: Clock;
  /** Entries kept per instance. */
  maxEntries: number;
  /** A bound on how stale an entry can be after writes that bypass the service. */
  maxAgeMs: number;
}

export interface SequencedCache<V> {
  /** The entry, if it was computed at sequence `seq` and is young enough. */
  get(key: string, seq: string): V | undefined;
  /** The entry whatever its sequence, if young enough: for a caller that checks the sequence in its own statement. */
  peek(key: string): { seq: string; value: V } | undefined;
  set(key: string, seq: string, value: V): void;
  has(key: string): boolean;
}

export function createSequencedCache<V>({ clock, maxEntries, maxAgeMs }: SequencedCacheOptions): SequencedCache<V> {
  const entries = new Map<string, { seq: string; value: V; storedAt: number }>();
  function young(key: string) {
    const entry = entries.get(key);
    if (entry === undefined || clock.now().getTime() - entry.storedAt > maxAgeMs) return undefined;
    // Re-inserted, so the Map's order is least recently used first.
    entries.delete(key);
    entries.set(key, entry);
    return entry;
  }
  return {
    get(key, seq) {
      const entry = young(key);
      return entry?.seq === seq ? entry.value : undefined;
    },
    peek(key) {
      const entry = young(key);
      return entry && { seq: entry.seq, value: entry.value };
    },
    set(key, seq, value) {
      entries.delete(key);
      entries.set(key, { seq, value, storedAt: clock.now().getTime() });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    has: (key) => entries.has(key),
  };
}
