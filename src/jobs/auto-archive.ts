// Archives teardowns whose publication expired. One statement claims a batch with
// FOR UPDATE SKIP LOCKED, archives it and writes its audit rows, so any number of instances
// can run it at once and no teardown is archived (or audited) twice.
import { sql } from 'kysely';
import { AUDIT } from '../audit/actions.js';
import type { Database } from '../db/database.js';

const BATCH = 500;

export async function archiveExpiredTeardowns(db: Database, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await sql<{ id: string }>`
      WITH due AS (
        SELECT id, status FROM teardowns
        WHERE expires_at <= ${now} AND status <> 'archived'
        ORDER BY expires_at
        LIMIT ${BATCH}
        FOR UPDATE SKIP LOCKED
      ), archived AS (
        UPDATE teardowns t SET status = 'archived', updated_at = ${now}
        FROM due WHERE t.id = due.id
        RETURNING t.id, t.org_id, due.status AS previous_status
      )
      INSERT INTO audit_events (org_id, action, entity_type, entity_id, previous_state, new_state, metadata)
      SELECT org_id, ${AUDIT.teardown.expired}::text, 'teardown', id,
             jsonb_build_object('status', previous_status),
             jsonb_build_object('status', 'archived'),
             jsonb_build_object('reason', 'expired', 'via_api', false, 'job', 'auto_archive')
      FROM archived
      RETURNING entity_id AS id`.execute(db);
    total += result.rows.length;
    if (result.rows.length < BATCH) return total;
  }
}
