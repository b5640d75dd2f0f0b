// Appending to and reading from the per-organization event log (migration 0007 explains the
// numbering). Writers call `appendEvents` as the LAST statement of the transaction that made the
// change: it takes the organization's counter row lock, held until commit, so keeping it last keeps
// the time other writers of that organization wait for it to one statement and the commit.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { EventType } from './types.js';

export interface NewEvent {
  orgId: string;
  type: EventType;
  entityType: 'teardown' | 'listing';
  entityId: string;
  /** What the partner reads: `entity_id` is added here, the rest is the caller's (a detail view). */
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface StoredEvent {
  id: string;
  seq: number;
  type: string;
  created_at: Date;
  data: Record<string, unknown>;
}

/**
 * Appends events in the order given, numbering them per organization. Organizations are locked in
 * id order, so two multi-organization writers (the auto-archive job) cannot deadlock each other.
 */
export async function appendEvents(tx: Transaction<DB> | Kysely<DB>, events: readonly NewEvent[]): Promise<void> {
  const byOrg = new Map<string, NewEvent[]>();
  for (const e of events) {
    const list = byOrg.get(e.orgId);
    if (list) list.push(e);
    else byOrg.set(e.orgId, [e]);
  }
  for (const orgId of [...byOrg.keys()].sort()) {
    const batch = byOrg.get(orgId) ?? [];
    const n = batch.length;
    // One statement: take the next n numbers (locking the counter row) and insert the rows.
    await sql`
      WITH claimed AS (
        INSERT INTO event_streams AS s (org_id, last_seq) VALUES (${orgId}, ${n})
        ON CONFLICT (org_id) DO UPDATE SET last_seq = s.last_seq + ${n}
        RETURNING s.last_seq
      )
      INSERT INTO events (org_id, seq, type, entity_type, entity_id, data, created_at)
      SELECT ${orgId}::uuid, claimed.last_seq - ${n} + e.ord, e.type, e.entity_type, e.entity_id::uuid, e.data::jsonb, e.created_at::timestamptz
      FROM claimed, unnest(
        ${batch.map((e) => e.type)}::text[],
        ${batch.map((e) => e.entityType)}::text[],
        ${batch.map((e) => e.entityId)}::text[],
        ${batch.map((e) => JSON.stringify({ entity_id: e.entityId, ...e.data }))}::text[],
        ${batch.map((e) => e.createdAt.toISOString())}::text[]
      ) WITH ORDINALITY AS e(type, entity_type, entity_id, data, created_at, ord)`.execute(tx);
  }
}

export interface StreamPosition {
  /** The number of the organization's newest committed event (0 when it has none). */
  lastSeq: number;
  /** Events numbered up to this one were purged by retention. */
  purgedThrough: number;
}

export async function streamPosition(db: Kysely<DB>, orgId: string): Promise<StreamPosition> {
  const row = await db.selectFrom('event_streams').select(['last_seq', 'purged_through']).where('org_id', '=', orgId).executeTakeFirst();
  return { lastSeq: row?.last_seq ?? 0, purgedThrough: row?.purged_through ?? 0 };
}

/** Events of one organization numbered after `afterSeq`, oldest first, optionally of some types only. */
export async function readEvents(
  db: Kysely<DB>,
  orgId: string,
  options: { afterSeq: number; types?: readonly string[]; limit: number },
): Promise<StoredEvent[]> {
  let query = db
    .selectFrom('events')
    .select(['id', 'seq', 'type', 'created_at', 'data'])
    .where('org_id', '=', orgId)
    .where('seq', '>', options.afterSeq)
    .orderBy('seq')
    .limit(options.limit);
  if (options.types && options.types.length > 0) query = query.where('type', 'in', options.types);
  return query.execute();
}

export interface FeedPage {
  /** Up to `limit` events numbered after `afterSeq` (of the given types), oldest first. */
  events: StoredEvent[];
  /** Whether another matching event was committed after the page, in the same snapshot. */
  hasMore: boolean;
  /** The stream position in the snapshot the page was read from. */
  position: StreamPosition;
}

/**
 * One page of the feed and the stream position, read by ONE statement, so from one snapshot: every
 * event numbered up to `position.lastSeq` is committed and visible to it (numbers follow commit
 * order), and `hasMore` is exact. `afterSeq` undefined: from the oldest retained event.
 */
export async function readFeedPage(
  db: Kysely<DB>,
  orgId: string,
  options: { afterSeq?: number; types?: readonly string[]; limit: number },
): Promise<FeedPage> {
  const types = options.types && options.types.length > 0 ? options.types : null;
  const { rows } = await sql<{
    last_seq: number;
    purged_through: number;
    id: string | null;
    seq: number | null;
    type: string | null;
    created_at: Date | null;
    data: Record<string, unknown> | null;
  }>`
    SELECT s.last_seq, s.purged_through, e.id, e.seq, e.type, e.created_at, e.data
    FROM (
      SELECT coalesce(max(last_seq), 0) AS last_seq, coalesce(max(purged_through), 0) AS purged_through
      FROM event_streams WHERE org_id = ${orgId}
    ) AS s
    LEFT JOIN LATERAL (
      SELECT id, seq, type, created_at, data FROM events
      WHERE org_id = ${orgId}
        AND seq > coalesce(${options.afterSeq ?? null}::bigint, s.purged_through)
        AND seq <= s.last_seq
        AND (${types}::text[] IS NULL OR type = ANY(${types}::text[]))
      ORDER BY seq
      LIMIT ${options.limit + 1}
    ) AS e ON true
    ORDER BY e.seq`.execute(db);
  const first = rows[0];
  const position = { lastSeq: Number(first?.last_seq ?? 0), purgedThrough: Number(first?.purged_through ?? 0) };
  const events: StoredEvent[] = [];
  for (const row of rows) {
    if (row.id === null || row.seq === null || row.type === null || row.created_at === null || row.data === null) continue;
    events.push({ id: row.id, seq: Number(row.seq), type: row.type, created_at: row.created_at, data: row.data });
  }
  const hasMore = events.length > options.limit;
  return { events: hasMore ? events.slice(0, options.limit) : events, hasMore, position };
}
