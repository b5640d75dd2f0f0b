// The periodic jobs: auto-archive of expired teardowns, revocation of keys whose minter left, the
// sweep of stored files no record references any more, the purge of expired Idempotency-Keys, and
// the retention purge of the event log and of webhook delivery attempts (EVENT_RETENTION_DAYS).
// Each job is safe to run on every instance at once (see the jobs themselves).
import type { FastifyBaseLogger } from 'fastify';
import { accountsRepository } from '../accounts/repository.js';
import type { AppContext } from '../context.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { purgeExpiredEvents } from '../events/retention.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';
import { archiveExpiredTeardowns } from './auto-archive.js';
import { sweepFileDeletions } from './file-sweep.js';
import { purgeWebhookDeliveries } from '../webhooks/repository.js';

export interface JobsResult {
  archived_teardowns: number;
  revoked_keys: number;
  deleted_files: number;
  purged_idempotency_keys: number;
  purged_events: number;
  purged_webhook_deliveries: number;
}

/** `vocabularies`: the app's cache, when there is one (the CLI runs without). */
export type JobsDeps = Pick<AppContext, 'db' | 'store' | 'config'> & Partial<Pick<AppContext, 'vocabularies'>>;

/** One pass of every periodic job; the admin CLI runs it without a server. */
export async function runJobsOnce(deps: JobsDeps, now: Date, log?: FastifyBaseLogger): Promise<JobsResult> {
  const archived_teardowns = await archiveExpiredTeardowns(deps.db, now, deps.vocabularies);
  const revoked_keys = await accountsRepository(deps.db).revokeKeysOfInactiveMinters(now);
  const deleted_files = await sweepFileDeletions(deps, now, log);
  const purged_idempotency_keys = await purgeIdempotencyKeys(deps.db, now, deps.config.idempotencyTtlHours);
  const purged_events = await purgeExpiredEvents(deps.db, now, deps.config.eventRetentionDays);
  const purged_webhook_deliveries = await purgeWebhookDeliveries(deps.db, now, deps.config.eventRetentionDays);
  return { archived_teardowns, revoked_keys, deleted_files, purged_idempotency_keys, purged_events, purged_webhook_deliveries };
}

export function createJobs(ctx: AppContext, log: FastifyBaseLogger) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<JobsResult> | undefined;

  async function runAll(): Promise<JobsResult> {
    const result = await runJobsOnce(ctx, ctx.clock.now(), log);
    ctx.metrics.jobRuns.inc({ job: 'auto_archive' }, result.archived_teardowns);
    ctx.metrics.jobRuns.inc({ job: 'key_revocation' }, result.revoked_keys);
    ctx.metrics.jobRuns.inc({ job: 'file_sweep' }, result.deleted_files);
    ctx.metrics.jobRuns.inc({ job: 'idempotency_purge' }, result.purged_idempotency_keys);
    ctx.metrics.jobRuns.inc({ job: 'event_purge' }, result.purged_events);
    ctx.metrics.jobRuns.inc({ job: 'webhook_delivery_purge' }, result.purged_webhook_deliveries);
    if (
      result.archived_teardowns ||
      result.revoked_keys ||
      result.deleted_files ||
      result.purged_idempotency_keys ||
      result.purged_events ||
      result.purged_webhook_deliveries
    )
      log.info(result, 'periodic jobs ran');
    return result;
  }

  return {
    runAll,
    start(intervalMs: number) {
      if (timer) return;
      const tick = () => {
        if (running) return; // a slow run is never overlapped by the next tick
        running = runAll()
          .catch((err) => {
            // An outage is logged once by ctx.health, not once per tick with a stack.
            if (isDatabaseUnavailable(err)) ctx.health.down('database', err);
            else log.error({ err }, 'periodic jobs failed');
            return { archived_teardowns: 0, revoked_keys: 0, deleted_files: 0, purged_idempotency_keys: 0, purged_events: 0, purged_webhook_deliveries: 0 };
          })
          .finally(() => {
            running = undefined;
          });
      };
      timer = setInterval(tick, intervalMs);
      timer.unref();
      tick();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
