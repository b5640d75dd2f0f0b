// The retention purge of the event log (EVENT_RETENTION_DAYS), run with the periodic jobs. Each
// organization's log loses a prefix: the oldest events up to the first one still young enough, in
// batches, and `event_streams.purged_through` rises in the same statement. The retained events are
// therefore exactly those numbered after `purged_through`: the feed starts there, and a cursor below
// it answers 410 cursor_expired.
import { sql } from 'kysely';
import type { Database } from '../db/database.js';

const BATCH = 1000;
const DAY_MS = 86_400_000;

/** Purges events older than `retentionDays`; answers how many were deleted. */
export async function purgeExpiredEvents(db: Database, now: Date, retentionDays: number): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  // The organizations whose oldest retained event is due: one primary-key probe each.
  const due = await sql<{ org_id: string }>`
    SELECT s.org_id FROM event_streams s
    WHERE s.purged_through < s.last_seq
      AND EXISTS (SELECT 1 FROM events e WHERE e.org_id = s.org_id AND e.seq = s.purged_through + 1 AND e.created_at < ${cutoff})
    ORDER BY s.org_id`.execute(db);
  let total = 0;
  for (const { org_id: orgId } of due.rows) {
    for (;;) {
      // One statement per batch, locking the organization's counter row for its duration only
      // (a writer of that organization waits that long, a few milliseconds). The batch is the
      // longest run of old events right after purged_through, in number order.
      const { rows } = await sql<{ purged: number }>`
        WITH stream AS (
          SELECT purged_through FROM event_streams WHERE org_id = ${orgId} FOR UPDATE
        ), head AS (
          SELECT seq, bool_and(old) OVER (ORDER BY seq) AS all_old
          FROM (
            SELECT e.seq, e.created_at < ${cutoff} AS old
            FROM events e, stream
            WHERE e.org_id = ${orgId} AND e.seq > stream.purged_through
            ORDER BY e.seq
            LIMIT ${BATCH}
          ) AS next
        ), deleted AS (
          DELETE FROM events WHERE org_id = ${orgId} AND seq IN (SELECT seq FROM head WHERE all_old)
          RETURNING seq
        ), raised AS (
          UPDATE event_streams SET purged_through = greatest(purged_through, (SELECT max(seq) FROM deleted))
          WHERE org_id = ${orgId} AND EXISTS (SELECT 1 FROM deleted)
        )
        SELECT count(*)::int AS purged FROM deleted`.execute(db);
      const purged = Number(rows[0]?.purged ?? 0);
      total += purged;
      if (purged < BATCH) break;
    }
  }
  return total;
}
