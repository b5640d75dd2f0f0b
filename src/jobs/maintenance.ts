// Table maintenance as a periodic job (db/maintenance.ts says what it runs and why): a pass every
// MAINTENANCE_INTERVAL_SECONDS, and an ANALYZE right after a bulk write so that the first search
// after an import is already planned on statistics.
//
// On PGlite a VACUUM or ANALYZE stops every request while it runs (0.3–0.4 s each for a 100,000-row
// table), where a PostgreSQL server's autovacuum would run beside them. So each statement of a pass
// waits for a moment when no request is queued for the database, for at most MAX_DEFERRAL_MS from
// the start of the pass: a burst of writes is answered first and maintained after, and a burst that
// lasts longer still gets its statistics, one statement at a time between its requests.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import { bulkWriteNeedsAnalyze, type MaintainedTable, type MaintenanceAction, maintainOnce, runMaintenance } from '../db/maintenance.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { DependencyHealth } from '../observability/dependencies.js';
import type { Metrics } from '../observability/metrics.js';

export interface MaintenanceDeps {
  db: Database;
  dbKind: 'postgres' | 'pglite';
  metrics: Metrics;
  health: DependencyHealth;
  lifecycle: { draining: boolean };
  log: FastifyBaseLogger;
  /** PGlite: requests queued for its one connection (DatabaseHandle.waiting). */
  databaseWaiting?: () => number;
  /** How long a pass may wait for a quiet database (tests shorten it). */
  maxDeferralMs?: number;
}

const MAX_DEFERRAL_MS = 30_000;
const QUIET_POLL_MS = 25;

export interface Maintenance {
  /** One pass now (tests, and the timer); answers what it ran. */
  runOnce(): Promise<MaintenanceAction[]>;
  /** ANALYZE after a committed bulk write of `rows`, before answering it, when it calls for one. Best effort: never throws. */
  afterBulkWrite(table: MaintainedTable, rows: number): Promise<void>;
  start(intervalMs: number): void;
  /** Stops the timer and waits for a pass under way, so that the database is not closed under it. */
  stop(): Promise<void>;
}

export function createMaintenance(deps: MaintenanceDeps): Maintenance {
  const { db, metrics, log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopping = false;
  const counted = (actions: MaintenanceAction[]) => {
    for (const { table, kind } of actions) metrics.maintenanceRuns.inc({ table, kind });
    return actions;
  };

  /** Waits for no request to be queued for the database, or for the pass's deadline; false when the instance stops. */
  function quietDatabase(waiting: () => number): () => Promise<boolean> {
    const deadline = Date.now() + (deps.maxDeferralMs ?? MAX_DEFERRAL_MS);
    return async () => {
      while (!stopping && waiting() > 0 && Date.now() < deadline) await sleep(QUIET_POLL_MS);
      return !stopping;
    };
  }

  async function runOnce() {
    const beforeStatement = deps.databaseWaiting ? quietDatabase(deps.databaseWaiting) : undefined;
    const actions = counted(await maintainOnce(db, deps.dbKind, { beforeStatement }));
    if (actions.length > 0) log.info({ actions }, 'table maintenance ran');
    return actions;
  }

  return {
    runOnce,
    async afterBulkWrite(table, rows) {
      try {
        if (!(await bulkWriteNeedsAnalyze(db, table, rows))) return;
        await runMaintenance(db, { table, kind: 'analyze' });
        counted([{ table, kind: 'analyze' }]);
      } catch (err) {
        // The rows are committed; the next periodic pass analyzes the table anyway.
        log.warn({ err, table }, 'ANALYZE after a bulk write failed');
      }
    },
    start(intervalMs) {
      if (timer) return;
      stopping = false;
      const tick = () => {
        // A slow pass is never overlapped; a draining instance starts nothing its close would wait for.
        if (running || deps.lifecycle.draining) return;
        running = runOnce()
          .catch((err) => {
            // An outage is logged once by health, not once per tick with a stack.
            if (isDatabaseUnavailable(err)) deps.health.down('database', err);
            else log.error({ err }, 'table maintenance failed');
          })
          .finally(() => {
            running = undefined;
          });
      };
      timer = setInterval(tick, intervalMs);
      timer.unref();
      tick();
    },
    async stop() {
      // A pass waiting for a quiet database gives up at once; a statement under way is awaited.
      stopping = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
