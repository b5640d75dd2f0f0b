// Deletes the stored objects queued in file_deletions that are due: files dropped from records
// whose immediate deletion failed or never ran, and uploads abandoned past their grace. Safe on
// any number of instances: one statement claims a batch with FOR UPDATE SKIP LOCKED and moves its
// not_before forward as a lease, so no other sweep takes those rows while this one works; the
// storage calls then run outside any transaction (no row lock is held across them).

import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { deleteObjects, fileDeletionsRepository, type QueuedDeletion } from '../files/deletions.js';
import { type OwnerKind, ownedObjectKey } from '../files/ownership.js';
import { SLOT_COLUMNS } from '../files/repository.js';

const BATCH = 100;
/** A claimed row stays hidden this long; a sweep that dies mid-batch is retried after it. */
const LEASE_MS = 5 * 60 * 1000;
/** Budget of one batch's storage calls. */
const BATCH_DEADLINE_MS = 20_000;
const BACKOFF_BASE_MS = 60 * 1000;
const BACKOFF_MAX_MS = 6 * 60 * 60 * 1000;

/** When a row that failed `attempts` times may be tried again: 1, 2, 4 ... minutes, at most 6 hours. */
const retryAt = (now: Date, attempts: number) =>
  new Date(now.getTime() + Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1), BACKOFF_MAX_MS));

interface Claimed {
  id: string;
  owner_kind: OwnerKind;
  record_id: string;
  object_key: string;
  url: string;
  attempts: number;
  /** Every URL the record holds now; null when the record is gone. */
  record_urls: (string | null)[] | null;
}

type Deps = Pick<AppContext, 'db' | 'store' | 'config'>;

async function claimDue(deps: Deps, now: Date): Promise<Claimed[]> {
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const slots = sql.join(SLOT_COLUMNS.map((slot) => sql.ref(`t.${slot}`)));
  const { rows } = await sql<Claimed>`
    WITH due AS (
      SELECT id FROM file_deletions
      WHERE not_before <= ${now}
      ORDER BY not_before
      LIMIT ${BATCH}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE file_deletions f SET attempts = f.attempts + 1, not_before = ${leaseUntil}
    FROM due WHERE f.id = due.id
    RETURNING f.id, f.owner_kind, f.record_id, f.object_key, f.url, f.attempts,
      CASE f.owner_kind
        WHEN 'teardowns' THEN (
          SELECT coalesce(t.documents, '{}'::text[]) || coalesce(t.images, '{}'::text[]) || ARRAY[${slots}]::text[]
          FROM teardowns t WHERE t.id = f.record_id)
        ELSE (
          SELECT coalesce(l.documents, '{}'::text[]) || coalesce(l.images, '{}'::text[])
          FROM listings l WHERE l.id = f.record_id)
      END AS record_urls`.execute(deps.db);
  return rows;
}

/** Whether the record (if it still exists) names the object again, under any spelling of its URL. */
function stillReferenced(deps: Deps, row: Claimed): boolean {
  return (row.record_urls ?? []).some(
    (url) => url !== null && (url === row.url || ownedObjectKey(deps, row.owner_kind, row.record_id, url) === row.object_key),
  );
}

/** One pass over every due row; answers how many objects it deleted. */
export async function sweepFileDeletions(deps: Deps, now: Date, log?: FastifyBaseLogger): Promise<number> {
  const repo = fileDeletionsRepository(deps.db);
  let deleted = 0;
  for (;;) {
    const claimed = await claimDue(deps, now);
    const inUse = claimed.filter((row) => stillReferenced(deps, row));
    // A URL put back on its record (PATCH) makes the file live again: the row goes, the object stays.
    await repo.remove(inUse.map((row) => row.id));
    const targets: QueuedDeletion[] = claimed
      .filter((row) => !inUse.includes(row))
      .map((row) => ({ id: row.id, ownerKind: row.owner_kind, recordId: row.record_id, key: row.object_key, url: row.url }));
    const { succeeded, failed } = await deleteObjects(deps.store, targets, BATCH_DEADLINE_MS);
    await repo.remove(succeeded);
    if (failed.length > 0) {
      const attemptsOf = new Map(claimed.map((row) => [row.id, row.attempts]));
      await repo.recordFailures(
        failed.map((f) => ({ ...f, notBefore: retryAt(now, attemptsOf.get(f.id) ?? 1) })),
        false,
      );
      log?.warn({ failed: failed.length, sample: failed[0] }, 'file sweep: some deletions failed; retrying later');
    }
    deleted += succeeded.length;
    // A short batch is the last; a batch in which storage refused everything ends the pass early.
    if (claimed.length < BATCH || (targets.length > 0 && succeeded.length === 0)) return deleted;
  }
}
