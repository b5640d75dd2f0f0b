// The file-deletion outbox (file_deletions). Whatever drops a file from a record writes a row in
// the same transaction; an upload writes one before its bytes reach the store, due only after a
// grace, and the transaction that attaches the URL takes it back. After a commit the service
// tries the deletions at once under a short deadline; what fails or times out is left to the
// sweep (src/jobs/file-sweep.ts). So no object outlives its record's reference for long, and a
// storage outage never holds an HTTP response.

import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { ObjectStore } from './object-store.js';
import { type OwnerKind, ownedObjectKey } from './ownership.js';

type Executor = Database | Transaction<DB>;

/** How long an upload may take before its object counts as abandoned (the sweep may then delete it). */
export const UPLOAD_GRACE_MS = 60 * 60 * 1000;
/** Rows a request will delete itself are hidden from the sweep this long (a crash in between is covered after it). */
export const REQUEST_LEASE_MS = 60 * 1000;
/** The whole budget of the deletions a request makes after its commit. */
export const REQUEST_DELETE_DEADLINE_MS = 2_000;

export interface Deletion {
  ownerKind: OwnerKind;
  recordId: string;
  key: string;
  url: string;
}
export interface QueuedDeletion extends Deletion {
  id: string;
}

/**
 * The objects to delete once `dropped` URLs left a record: only those under the record's own
 * prefix (the ownership guard, decisions.md section 4), and never one that a URL the record still
 * holds names too (however that URL is spelled).
 */
export function droppedObjects(
  ctx: Pick<AppContext, 'config'>,
  ownerKind: OwnerKind,
  recordId: string,
  dropped: Iterable<string | null | undefined>,
  remaining: Iterable<string | null | undefined> = [],
  log?: FastifyBaseLogger,
): Deletion[] {
  const kept = new Set<string>();
  for (const url of remaining) {
    const key = url ? ownedObjectKey(ctx, ownerKind, recordId, url) : undefined;
    if (key) kept.add(key);
  }
  const out = new Map<string, Deletion>();
  for (const url of dropped) {
    if (!url) continue;
    const key = ownedObjectKey(ctx, ownerKind, recordId, url);
    if (!key) log?.info({ ownerKind, recordId, url }, 'file not under the record prefix: left in storage');
    else if (!kept.has(key) && !out.has(key)) out.set(key, { ownerKind, recordId, key, url });
  }
  return [...out.values()];
}

export function fileDeletionsRepository(db: Executor) {
  return {
    async enqueue(items: Deletion[], notBefore: Date): Promise<QueuedDeletion[]> {
      if (items.length === 0) return [];
      const rows = await db
        .insertInto('file_deletions')
        .values(
          items.map((d) => ({ owner_kind: d.ownerKind, record_id: d.recordId, object_key: d.key, url: d.url, not_before: notBefore })),
        )
        .returning(['id', 'object_key'])
        .execute();
      const idOf = new Map(rows.map((r) => [r.object_key, r.id]));
      return items.map((d) => ({ ...d, id: idOf.get(d.key) as string }));
    },

    async remove(ids: string[]): Promise<void> {
      if (ids.length > 0) await db.deleteFrom('file_deletions').where('id', 'in', ids).execute();
    },

    /**
     * Records failed attempts and when each may be retried. The sweep's claim has counted its
     * attempt already; a request's own attempt after its commit is counted here (`countAttempt`).
     */
    async recordFailures(failures: { id: string; error: string; notBefore: Date }[], countAttempt: boolean): Promise<void> {
      for (const { id, error, notBefore } of failures) {
        await db
          .updateTable('file_deletions')
          .set((eb) => ({
            last_error: error.slice(0, 1000),
            not_before: notBefore,
            attempts: countAttempt ? eb('attempts', '+', 1) : eb.ref('attempts'),
          }))
          .where('id', '=', id)
          .execute();
      }
    },
  };
}

export interface DeleteOutcome {
  succeeded: string[];
  failed: { id: string; error: string }[];
}

/**
 * Deletes the objects of `items` in parallel within `deadlineMs` in all; what has not finished by
 * then counts as failed (and is aborted). Never throws.
 */
export async function deleteObjects(store: ObjectStore, items: QueuedDeletion[], deadlineMs: number): Promise<DeleteOutcome> {
  const outcome: DeleteOutcome = { succeeded: [], failed: [] };
  if (items.length === 0) return outcome;
  const abort = new AbortController();
  const settled = new Set<string>();
  const attempts = items.map(async (item) => {
    try {
      await store.delete(item.key, { signal: abort.signal });
      if (!abort.signal.aborted) outcome.succeeded.push(item.id);
      else outcome.failed.push({ id: item.id, error: 'deadline exceeded' });
    } catch (err) {
      outcome.failed.push({ id: item.id, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    } finally {
      settled.add(item.id);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  await Promise.race([Promise.all(attempts), deadline]);
  clearTimeout(timer);
  if (settled.size < items.length) {
    abort.abort();
    for (const item of items) if (!settled.has(item.id)) outcome.failed.push({ id: item.id, error: 'deadline exceeded' });
    // Late settlements must not report twice: the outcome is frozen from here on.
    return { succeeded: [...outcome.succeeded], failed: [...outcome.failed] };
  }
  return outcome;
}

/**
 * After the commit that queued them: deletes the objects under the request deadline, removes the
 * rows of those deleted, and hands the others to the sweep (due at once, the failure recorded).
 * Never throws: the change the caller made is committed whatever storage does.
 */
export async function deleteAfterCommit(
  ctx: Pick<AppContext, 'db' | 'store' | 'clock'>,
  queued: QueuedDeletion[],
  log: FastifyBaseLogger,
): Promise<void> {
  if (queued.length === 0) return;
  const { succeeded, failed } = await deleteObjects(ctx.store, queued, REQUEST_DELETE_DEADLINE_MS);
  const repo = fileDeletionsRepository(ctx.db);
  try {
    await repo.remove(succeeded);
    if (failed.length > 0) {
      log.warn({ failed }, 'could not delete stored files now; the file sweep will retry');
      const now = ctx.clock.now();
      await repo.recordFailures(
        failed.map((f) => ({ ...f, notBefore: now })),
        true,
      );
    }
  } catch (err) {
    // The rows stay; the sweep deletes again (a missing object counts as deleted).
    log.warn({ err }, 'could not update the file deletion outbox');
  }
}
