// The periodic jobs: auto-archive of expired teardowns and revocation of keys whose minter left.
// Each job is safe to run on every instance at once (see the jobs themselves).
import type { FastifyBaseLogger } from 'fastify';
import { accountsRepository } from '../accounts/repository.js';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { archiveExpiredTeardowns } from './auto-archive.js';

export interface JobsResult {
  archived_teardowns: number;
  revoked_keys: number;
}

/** One pass of every periodic job; the admin CLI runs it without a server. */
export async function runJobsOnce(db: Database, now: Date): Promise<JobsResult> {
  const archived_teardowns = await archiveExpiredTeardowns(db, now);
  const revoked_keys = await accountsRepository(db).revokeKeysOfInactiveMinters(now);
  return { archived_teardowns, revoked_keys };
}

export function createJobs(ctx: AppContext, log: FastifyBaseLogger) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<JobsResult> | undefined;

  async function runAll(): Promise<JobsResult> {
    const { archived_teardowns, revoked_keys } = await runJobsOnce(ctx.db, ctx.clock.now());
    ctx.metrics.jobRuns.inc({ job: 'auto_archive' }, archived_teardowns);
    ctx.metrics.jobRuns.inc({ job: 'key_revocation' }, revoked_keys);
    if (archived_teardowns || revoked_keys) log.info({ archived_teardowns, revoked_keys }, 'periodic jobs ran');
    return { archived_teardowns, revoked_keys };
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
            return { archived_teardowns: 0, revoked_keys: 0 };
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
