// The database a process configures for itself (server or admin CLI): PostgreSQL at
// DATABASE_URL, or embedded PGlite under DATA_DIR behind a one-process lock; migrated, ready.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { lockDataDir } from './data-dir-lock.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { isDatabaseUnavailable } from './unavailable.js';

export interface OpenOptions {
  /** Told about each failed attempt while start-up waits for PostgreSQL. */
  onWaiting?: (attempt: number, err: unknown) => void;
}

type OpenConfig = Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize'> & {
  dbPreparedStatements?: Config['dbPreparedStatements'];
  db?: Config['db'];
  pgliteSharedBuffersMb?: Config['pgliteSharedBuffersMb'];
};

export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/** SQLSTATEs of a DATABASE_URL that names a missing database, a wrong user or password. */
const DATABASE_SETUP_ERRORS = new Set(['3D000', '28000', '28P01']);

/**
 * Why the configured database cannot be opened, in one line, when it is a setting to fix (PostgreSQL
 * unreachable past DB_STARTUP_TIMEOUT_SECONDS, a missing database, a wrong user or password);
 * undefined for any other failure. The server and the CLI print it and exit 78 (EX_CONFIG).
 * Never carries the URL (nor its password): pg's messages name the database, not the URL.
 */
export function databaseOpenProblem(err: unknown): string | undefined {
  if (err instanceof DatabaseUnreachableError) return err.message;
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && DATABASE_SETUP_ERRORS.has(code)) return e.message;
  }
  return undefined;
}

export async function openConfiguredDatabase(config: OpenConfig, options: OpenOptions = {}): Promise<DatabaseHandle> {
  if (!config.databaseUrl) return openEmbedded(config);
  const url = config.databaseUrl;
  const deadlines = config.db;
  // Migrations run on their own short-lived connection without statement_timeout: building an index
  // on a large table may legitimately take longer than any request should.
  await untilReachable(config, options, async () => {
    const migrating = await openDatabase({ url, poolSize: 1, deadlines: deadlines && { ...deadlines, statementTimeoutMs: 0 } });
    try {
      await migrateToLatest(migrating.db);
    } finally {
      await migrating.close().catch(() => {});
    }
  });
  return openDatabase({ url, poolSize: config.dbPoolSize, deadlines, preparedStatements: config.dbPreparedStatements });
}

/**
 * Runs `attempt` until it succeeds, retrying while PostgreSQL is unreachable (a database that starts
 * after the service, a failover in progress) for at most DB_STARTUP_TIMEOUT_SECONDS. Any other
 * failure (bad credentials, a failed migration) is final at once.
 */
async function untilReachable(config: OpenConfig, options: OpenOptions, attempt: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + (config.db?.startupTimeoutSeconds ?? 0) * 1000;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      if (Date.now() >= deadline) {
        throw new DatabaseUnreachableError(
          `PostgreSQL at DATABASE_URL is unreachable (${err instanceof Error ? err.message : String(err)}); gave up after ${n} attempt(s) (DB_STARTUP_TIMEOUT_SECONDS=${config.db?.startupTimeoutSeconds ?? 0}).`,
          { cause: err },
        );
      }
      options.onWaiting?.(n, err);
      await sleep(Math.min(5000, 500 * 2 ** Math.min(n - 1, 4)));
    }
  }
}

async function openEmbedded(config: OpenConfig): Promise<DatabaseHandle> {
  const release = lockDataDir(config.dataDir);
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase({ pgliteDataDir: join(config.dataDir, 'pglite'), pgliteSharedBuffersMb: config.pgliteSharedBuffersMb });
    await migrateToLatest(handle.db);
  } catch (err) {
    await handle?.close().catch(() => {});
    release();
    throw err;
  }
  const opened = handle;
  return {
    ...opened,
    close: async () => {
      try {
        await opened.close();
      } finally {
        release();
      }
    },
  };
}
