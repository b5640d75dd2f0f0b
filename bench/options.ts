// Benchmark settings, read once from the environment. BENCH_QUICK=1 is the smoke mode used to check the
// harness itself on a busy machine; its numbers are not results.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: child processes, the build and the output files are all relative to it. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export type Backend = 'postgres' | 'pglite';

export interface BenchOptions {
  quick: boolean;
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  organizations: number;
  teardowns: number;
  listings: number;
  /** Rows of the organization whose list latency is compared at small and at full table size. */
  probeRows: number;
  /** Teardowns imported through the admin API at the end, into `importOrganizations` empty organizations. */
  importRows: number;
  importOrganizations: number;
  /** Administrative PostgreSQL URL: the bench creates and drops its own database through it. */
  postgresUrl: string;
  backends: Backend[];
  /** Hard limit on the whole run; past it everything is stopped and cleaned up. */
  timeoutMinutes: number;
  resultsPath: string;
  /** Where the query plans go; quick runs write none unless BENCH_EXPLAIN names a file (their plans are of a toy table). */
  explainPath?: string;
  uploadBytes: number;
  bigUploadBytes: number;
  /** BENCH_ONLY: scenario ids to run (plus 'probe', 'upload-50mb'); all when absent. */
  only?: string[];
  /** BENCH_SEGMENTS: measured segments per side of an A/B scenario (even: floor, service, service, floor, ...). */
  segments: number;
  /**
   * Segments per side of get by id (teardown, listing): at least six outside BENCH_QUICK. Its ratio sits
   * near its 85 % target, and one pair of 6 s segments moves by ten points on a shared two-core machine.
   */
  byIdSegments: number;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds (got ${raw})`);
  return value;
}

function segmentCount(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 2;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 2 || value % 2 !== 0) throw new Error(`BENCH_SEGMENTS must be an even number, 2 or more (got ${raw})`);
  return value;
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function readOptions(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  const segments = segmentCount(env.BENCH_SEGMENTS);
  const teardowns = quick ? 5_000 : 100_000;
  const postgresUrl = env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  // The bench generates load and drops a database: it must never aim either at another machine.
  if (!LOCAL_HOSTS.has(new URL(postgresUrl).hostname)) throw new Error(`BENCH_POSTGRES_URL must point at 127.0.0.1 (got ${postgresUrl})`);
  const backends = (env.BENCH_BACKENDS ?? 'postgres,pglite').split(',').map((b) => b.trim());
  for (const b of backends) if (b !== 'postgres' && b !== 'pglite') throw new Error(`BENCH_BACKENDS: unknown backend ${b}`);
  return {
    quick,
    warmupSeconds: seconds(env, 'BENCH_WARMUP', 2),
    durationSeconds: seconds(env, 'BENCH_DURATION', quick ? 3 : 6),
    connections: Math.round(seconds(env, 'BENCH_CONNECTIONS', 50)),
    organizations: 50,
    teardowns,
    listings: quick ? 1_000 : 20_000,
    probeRows: Math.min(1_000, Math.floor(teardowns / 5)),
    importRows: quick ? 5_000 : 100_000,
    importOrganizations: 10,
    postgresUrl,
    backends: backends as Backend[],
    timeoutMinutes: seconds(env, 'BENCH_TIMEOUT_MINUTES', quick ? 30 : 90),
    resultsPath: resolve(projectRoot, env.BENCH_RESULTS ?? 'bench/RESULTS.md'),
    explainPath: env.BENCH_EXPLAIN || !quick ? resolve(projectRoot, env.BENCH_EXPLAIN ?? 'bench/EXPLAIN.md') : undefined,
    uploadBytes: 1024 * 1024,
    // Under the 50 MB limit whichever way "MB" is read, so the upload is accepted.
    bigUploadBytes: 50_000_000,
    only: env.BENCH_ONLY ? env.BENCH_ONLY.split(',').map((s) => s.trim()) : undefined,
    segments,
    byIdSegments: quick ? segments : Math.max(6, segments),
  };
}
