// Archives teardowns whose publication expired, one transaction per batch: one statement claims
// the batch with FOR UPDATE SKIP LOCKED, archives it and writes its audit rows; then the batch's
// `teardown.status_changed` events are appended, grouped per organization (appendEvents locks the
// organizations' counter rows in sorted order, so concurrent runs cannot deadlock), and the
// transaction commits. Any number of instances can run it at once; no teardown is archived,
// audited or announced twice.
import { sql } from 'kysely';
import { AUDIT } from '../audit/actions.js';
import type { Database } from '../db/database.js';
import type { TeardownRow } from '../db/schema.js';
import { appendEvents } from '../events/log.js';
import { statusChanged } from '../events/record.js';
import { toDetail } from '../teardowns/view.js';
import { loadVocabularyLookup } from '../vocabularies/attach.js';
import { type VocabularyRepository, vocabularyRepository } from '../vocabularies/repository.js';

const BATCH = 500;

export async function archiveExpiredTeardowns(
  db: Database,
  now: Date,
  vocabularies: VocabularyRepository = vocabularyRepository(db),
): Promise<number> {
  let total = 0;
  for (;;) {
    const archived = await db.transaction().execute(async (tx) => {
      // A data-modifying CTE runs whether or not the outer SELECT reads it: the audit rows are
      // written by the same statement that archives.
      const { rows } = await sql<TeardownRow & { previous_status: string }>`
        WITH due AS (
          SELECT id, status FROM teardowns
          WHERE expires_at <= ${now} AND status <> 'archived'
          ORDER BY expires_at
          LIMIT ${BATCH}
          FOR UPDATE SKIP LOCKED
        ), archived AS (
          UPDATE teardowns t SET status = 'archived', updated_at = ${now}
          FROM due WHERE t.id = due.id
          RETURNING t.*, due.status AS previous_status
        ), audited AS (
          INSERT INTO audit_events (org_id, action, entity_type, entity_id, previous_state, new_state, metadata)
          SELECT org_id, ${AUDIT.teardown.expired}::text, 'teardown', id,
                 jsonb_build_object('status', previous_status),
                 jsonb_build_object('status', 'archived'),
                 jsonb_build_object('reason', 'expired', 'via_api', false, 'job', 'auto_archive')
          FROM archived
        )
        SELECT * FROM archived`.execute(tx);
      if (rows.length === 0) return 0;
      const lookup = await loadVocabularyLookup(vocabularies, rows, tx);
      await appendEvents(
        tx,
        rows.map(({ previous_status, ...row }) =>
          statusChanged(
            { entity: 'teardown', orgId: row.org_id, entityId: row.id, at: now, object: toDetail(row, lookup) },
            previous_status,
          ),
        ),
      );
      return rows.length;
    });
    total += archived;
    if (archived < BATCH) return total;
  }
}
