// Starting the built service and the floors as child processes, configured for load: no rate limit
// in the way, quiet logs, no background jobs, no demo account.
import { BENCH_ADMIN_TOKEN } from './import.js';
import type { Backend } from './options.js';
import { type Child, startChild } from './processes.js';
import type { FloorKey } from './scenarios.js';

export interface DatabaseTarget {
  backend: Backend;
  /** PostgreSQL URL of the bench database (postgres backend). */
  url?: string;
  /** DATA_DIR of the service: PGlite lives in DATA_DIR/pglite, files in DATA_DIR/storage. */
  dataDir: string;
}

/**
 * `env` overrides the bench settings (the AUTH_CACHE_SECONDS=0 and default-log-level variants);
 * `serverScript`: another checkout's built server (bench:pinned's before/after).
 */
export function startService(
  target: DatabaseTarget,
  port: number,
  env: Record<string, string | undefined> = {},
  serverScript = 'dist/src/server.js',
): Promise<Child> {
  const settings: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: target.dataDir,
    ...(target.url ? { DATABASE_URL: target.url } : {}),
    RATE_LIMIT_PER_MINUTE: '1000000000',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
    JOBS_INTERVAL_SECONDS: '0',
    DEMO_ON_FIRST_START: 'false',
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
  };
  // An override of undefined removes the bench's setting: the service's own default applies.
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete settings[name];
    else settings[name] = value;
  }
  return startChild({
    name: `service (${target.backend})`,
    args: [serverScript],
    port,
    readyPath: '/readyz',
    env: settings,
  });
}

const FLOOR_FILES: Record<FloorKey, string> = {
  reads: 'bench/floors/reads.ts',
  upload: 'bench/floors/upload.ts',
};

export interface FloorDatabase {
  url?: string;
  pgliteDir?: string;
  uploadDir: string;
}

export function startFloor(key: FloorKey, db: FloorDatabase, port: number): Promise<Child> {
  return startChild({
    name: `floor ${key}`,
    args: ['--import', 'tsx', FLOOR_FILES[key]],
    port,
    readyPath: '/readyz',
    env: {
      PORT: String(port),
      FLOOR_UPLOAD_DIR: db.uploadDir,
      ...(db.url ? { FLOOR_DATABASE_URL: db.url } : {}),
      ...(db.pgliteDir ? { FLOOR_PGLITE_DIR: db.pgliteDir } : {}),
    },
  });
}
