// `npm run bench:scale`: does a teardown list cost the same when the caller's organization holds
// 1,000 rows and when it holds 1,000,000? Dataset A grows one organization in chunks and measures
// the list probes at each size with a fresh service process; dataset B spreads 100,000 rows over 50
// organizations. The list's two statements (page, exact count) are explained at every size.
// Writes bench/SCALE.md. Everything it starts it stops, and everything it creates it removes, also
// on failure, on Ctrl-C and at the time limit. No VACUUM / ANALYZE here: the service's own
// maintenance is waited for (PostgreSQL), and its absence is recorded.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Request } from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { type DatabaseHandle, DEFAULT_DEADLINES } from '../src/db/database.js';
import { openConfiguredDatabase } from '../src/db/open-configured.js';
import { Cleanup, errorText } from './cleanup.js';
import { createPostgresDatabase } from './databases.js';
import { benchLog, runInfo, runToCompletion } from './lifecycle.js';
import { type LoadSettings, type LoadSpec, type Measurement, measure } from './load.js';
import { type Backend, projectRoot, readOptions } from './options.js';
import { type Child, freePort, stopAllChildren } from './processes.js';
import { type ProbeResult, renderScale, type ScaleOptions, type ScaleResult, type SizeResult } from './scale-report.js';
import { explainStatement, type ListAsk, listStatements, PER_PAGE } from './scale-sql.js';
import { prepareSchema, type SeededOrg, seedOrganizations, seedTeardowns, type Vocabulary } from './seed.js';
import { type DatabaseTarget, startService } from './service.js';

const log = benchLog('scale');

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/[_,]/g, ''));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got ${raw})`);
  return value;
}

function readScaleOptions(env: NodeJS.ProcessEnv = process.env): ScaleOptions {
  // The shared reader validates BENCH_POSTGRES_URL (local only) and BENCH_BACKENDS; the durations have their own defaults here.
  const shared = readOptions(env);
  const maxRows = Math.round(count(env, 'BENCH_SCALE_MAX_ROWS', 1_000_000));
  const smallRows = Math.round(count(env, 'BENCH_SCALE_SMALL_ROWS', 1_000));
  if (smallRows >= maxRows) throw new Error('BENCH_SCALE_SMALL_ROWS must be below BENCH_SCALE_MAX_ROWS');
  const steps = (env.BENCH_SCALE_STEPS ?? '')
    .split(',')
    .map((s) => s.trim().replace(/[_]/g, ''))
    .filter(Boolean)
    .map(Number)
    .filter((n) => Number.isFinite(n) && n > smallRows && n < maxRows);
  return {
    maxRows,
    smallRows,
    sizes: [...new Set([smallRows, ...steps.sort((a, b) => a - b), maxRows])],
    chunkRows: Math.round(count(env, 'BENCH_SCALE_CHUNK_ROWS', 100_000)),
    otherOrgs: 4,
    otherOrgRows: 1_000,
    datasetB: env.BENCH_SCALE_DATASET_B !== '0',
    bOrganizations: 50,
    bRowsPerOrg: 2_000,
    backends: env.BENCH_BACKENDS ? shared.backends : ['postgres'],
    connections: shared.connections,
    warmupSeconds: count(env, 'BENCH_WARMUP', 3),
    durationSeconds: count(env, 'BENCH_DURATION', 10),
    timeoutMinutes: count(env, 'BENCH_TIMEOUT_MINUTES', 120),
    analyzeWaitSeconds: count(env, 'BENCH_SCALE_ANALYZE_WAIT', 60),
    broadTerm: env.BENCH_SCALE_BROAD_TERM || 'available',
    selectiveTerms: 20,
    postgresUrl: shared.postgresUrl,
    outputPath: resolve(projectRoot, env.BENCH_SCALE_OUTPUT ?? 'bench/SCALE.md'),
  };
}

const options = readScaleOptions();
const cleanup = new Cleanup(log);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (since: number) => (performance.now() - since) / 1000;

/** The database of one data set: a fresh PostgreSQL database or a PGlite data directory. */
async function createTarget(backend: Backend, dir: string): Promise<DatabaseTarget> {
  await mkdir(dir, { recursive: true });
  const target: DatabaseTarget = { backend, dataDir: dir };
  cleanup.add(`remove ${dir}`, () => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 }));
  if (backend === 'postgres') {
    const database = await createPostgresDatabase(options.postgresUrl);
    cleanup.add(`drop database ${database.name}`, () => database.drop());
    target.url = database.url;
    log(`[${backend}] created database ${database.name}`);
  }
  return target;
}

/** The service's own opener (real migrator; PGlite's one-process lock), without a statement deadline: a 100k-row INSERT may take longer. */
const open = (t: DatabaseTarget) =>
  openConfiguredDatabase({
    databaseUrl: t.url,
    dataDir: t.dataDir,
    dbPoolSize: 2,
    db: { ...DEFAULT_DEADLINES, statementTimeoutMs: 0, startupTimeoutSeconds: 0 },
  });

async function withHandle<T>(t: DatabaseTarget, use: (h: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await open(t);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** The database's clock when the seed ended: analyze times are compared with it on the same clock. */
async function databaseNow(h: DatabaseHandle): Promise<Date> {
  const r = await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(h.db);
  return new Date(r.rows[0].now);
}

/**
 * Waits (PostgreSQL) until teardowns was analyzed after `seedEnd`, by the service's maintenance or by
 * autovacuum; answers the seconds waited, or undefined after the timeout. PGlite cannot be watched
 * from outside while the service holds its data directory.
 */
async function waitForAnalyze(t: DatabaseTarget, seedEnd: Date): Promise<{ analyzed: boolean; seconds: number; by?: string }> {
  if (!t.url) return { analyzed: false, seconds: 0, by: 'not observable (embedded PGlite: one process per data directory)' };
  const client = new pg.Client({ connectionString: t.url, application_name: 'partner-api-bench-scale' });
  await client.connect();
  const since = performance.now();
  try {
    while (seconds(since) < options.analyzeWaitSeconds) {
      const r = await client.query<{ last_analyze: Date | null; last_autoanalyze: Date | null }>(
        `SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relname = 'teardowns'`,
      );
      const row = r.rows[0];
      if (row?.last_analyze && row.last_analyze > seedEnd) return { analyzed: true, seconds: seconds(since), by: 'ANALYZE' };
      if (row?.last_autoanalyze && row.last_autoanalyze > seedEnd) return { analyzed: true, seconds: seconds(since), by: 'autovacuum' };
      await sleep(1000);
    }
    return { analyzed: false, seconds: seconds(since) };
  } finally {
    await client.end();
  }
}

interface Probe {
  id: string;
  title: string;
  /** Query strings one connection rotates over. */
  queries: string[];
  /** The same request for the SQL explain (the first of the rotation). */
  ask: ListAsk;
}

function probesFor(orgRows: number, terms: string[], includeMiddle: boolean): Probe[] {
  const probes: Probe[] = [
    { id: 'page-1', title: 'List, page 1', queries: ['page=1'], ask: { page: 1 } },
    { id: 'page-40', title: 'List, page 40', queries: ['page=40'], ask: { page: 40 } },
  ];
  const middle = Math.floor(orgRows / 2 / PER_PAGE);
  if (includeMiddle && middle > 40) {
    probes.push({
      id: 'page-middle',
      title: `List, page ${middle.toLocaleString('en-US')} (offset ${(middle * PER_PAGE - PER_PAGE).toLocaleString('en-US')})`,
      queries: [`page=${middle}`],
      ask: { page: middle },
    });
  }
  probes.push(
    {
      id: 'search-selective',
      title: `Selective search (one MSN, ${terms.length} rotating)`,
      queries: terms.map((t) => `search=${encodeURIComponent(t)}`),
      ask: { page: 1, search: terms[0] },
    },
    {
      id: 'search-broad',
      title: `Broad search (${JSON.stringify(options.broadTerm)})`,
      queries: [`search=${encodeURIComponent(options.broadTerm)}`],
      ask: { page: 1, search: options.broadTerm },
    },
    { id: 'sort-msn', title: 'List, sort_by=msn, page 1', queries: ['sort_by=msn&page=1'], ask: { page: 1, sortBy: 'msn' } },
  );
  return probes;
}

function probeSpec(org: SeededOrg, queries: string[]): LoadSpec {
  const headers = { authorization: `Bearer ${org.key}`, 'x-organization-id': org.orgId };
  return {
    connection(index) {
      let n = index * 7;
      // autocannon takes host and port from the request it passes in: keep them.
      return [
        {
          setupRequest: (request: Request) => ({
            ...request,
            method: 'GET' as const,
            path: `/public/v1/teardowns?${queries[n++ % queries.length]}`,
            headers,
            body: undefined,
          }),
        },
      ];
    },
  };
}

const summary = (m?: Measurement) =>
  m
    ? `${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx + m.errors + m.timeouts}/${m.completed}`
    : 'no result';

/** One size: fresh service, wait for statistics, every probe, stop; then the SQL of each probe explained. */
async function measureSize(
  t: DatabaseTarget,
  label: string,
  org: SeededOrg,
  orgRows: number,
  tableRows: number,
  seedEnd: Date,
  terms: string[],
  includeMiddle: boolean,
): Promise<SizeResult> {
  const probes = probesFor(orgRows, terms, includeMiddle);
  const result: SizeResult = { label, orgRows, tableRows, probes: [], analyze: { analyzed: false, seconds: 0 } };
  const settings: LoadSettings = {
    connections: options.connections,
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
  };
  const port = await freePort();
  let service: Child | undefined;
  try {
    service = await startService(t, port);
    result.analyze = await waitForAnalyze(t, seedEnd);
    log(
      `[${t.backend}] ${label}: ${result.analyze.analyzed ? `analyzed (${result.analyze.by}) after ${result.analyze.seconds.toFixed(0)} s` : result.analyze.by ? `statistics not checked: ${result.analyze.by}` : `not analyzed within ${options.analyzeWaitSeconds} s`}`,
    );
    for (const p of probes) {
      const r: ProbeResult = { id: p.id, title: p.title };
      result.probes.push(r);
      try {
        // One request first: its status and `total` say what the probe matches. It is retried while the
        // service still works off the previous probe's queue (a 503 when the pool wait runs out), so
        // each probe starts on an idle service.
        for (let attempt = 1; attempt <= 10; attempt++) {
          const res = await fetch(`${service.baseUrl}/public/v1/teardowns?${p.queries[0]}`, {
            headers: { authorization: `Bearer ${org.key}`, 'x-organization-id': org.orgId },
            signal: AbortSignal.timeout(30_000),
          }).catch(() => undefined);
          const body = (await res?.json().catch(() => ({}))) as { total?: number; items?: unknown[] } | undefined;
          r.firstStatus = res?.status;
          r.total = body?.total;
          r.items = body?.items?.length;
          if (res?.status === 200) break;
          await sleep(2000);
        }
        r.service = await measure(service.baseUrl, probeSpec(org, p.queries), settings, service.pid);
      } catch (err) {
        r.error = errorText(err);
      }
      log(`[${t.backend}] ${label} ${p.id}: total ${r.total ?? '?'}, ${summary(r.service)}${r.error ? ` | error: ${r.error}` : ''}`);
    }
  } finally {
    await service?.stop();
  }
  await withHandle(t, async (h) => {
    for (const p of probes) {
      const r = result.probes.find((x) => x.id === p.id);
      if (!r) continue;
      try {
        const statements = await listStatements(h.db, org.orgId, p.ask);
        r.pagePlan = await explainStatement(h.db, statements.page);
        if (statements.firstPage) r.firstPagePlan = await explainStatement(h.db, statements.firstPage);
        r.countPlan = await explainStatement(h.db, statements.count);
      } catch (err) {
        r.explainError = errorText(err);
      }
    }
  });
  log(
    `[${t.backend}] ${label} SQL ms (page / count): ${result.probes.map((r) => `${r.id} ${r.pagePlan?.executionMs.toFixed(1) ?? '?'} / ${r.countPlan?.executionMs.toFixed(1) ?? '?'}`).join(', ')}`,
  );
  return result;
}

async function selectiveTerms(h: DatabaseHandle, orgId: string): Promise<string[]> {
  // Engine serial numbers ('ESN 5xxxxx'): unique across the table and no substring of another one,
  // so a search for one matches that row alone, at every table size.
  const r = await sql<{ msn: string }>`
    SELECT msn FROM teardowns WHERE org_id = ${orgId}::uuid AND msn LIKE 'ESN %' AND status <> 'archived'
    ORDER BY random() LIMIT ${options.selectiveTerms}::int`.execute(h.db);
  if (r.rows.length === 0) throw new Error('no engine MSN to search for');
  return r.rows.map((row) => row.msn);
}

/** Dataset A: one organization grown from smallRows to maxRows, measured at each size. */
async function datasetA(backend: Backend, tmpRoot: string, out: ScaleResult): Promise<void> {
  const t = await createTarget(backend, join(tmpRoot, `${backend}-a`));
  let orgs: SeededOrg[] = [];
  let vocabulary: Vocabulary | undefined;
  let terms: string[] = [];
  let rows = 0;
  for (const size of options.sizes) {
    let seedEnd: Date | undefined;
    await withHandle(t, async (h) => {
      if (!vocabulary) {
        vocabulary = await prepareSchema(h.db);
        orgs = await seedOrganizations(h.db, 1 + options.otherOrgs);
        // The other organizations' serial numbers start past the largest size: no MSN repeats.
        for (const other of orgs.slice(1)) {
          await seedTeardowns(h.db, other, options.otherOrgRows, options.maxRows + other.index * options.otherOrgRows, vocabulary);
        }
      }
      while (rows < size) {
        const chunk = Math.min(options.chunkRows, size - rows);
        const since = performance.now();
        await seedTeardowns(h.db, orgs[0], chunk, rows, vocabulary);
        out.seedChunks.push({ rows: chunk, seconds: seconds(since) });
        rows += chunk;
        log(
          `[${backend}] A: seeded ${chunk.toLocaleString('en-US')} rows in ${seconds(since).toFixed(1)} s (organization now ${rows.toLocaleString('en-US')})`,
        );
      }
      if (terms.length === 0) terms = await selectiveTerms(h, orgs[0].orgId);
      seedEnd = await databaseNow(h);
    });
    const tableRows = rows + options.otherOrgs * options.otherOrgRows;
    out.a.push(
      await measureSize(t, `A ${rows.toLocaleString('en-US')}`, orgs[0], rows, tableRows, seedEnd!, terms, size === options.maxRows),
    );
  }
}

/** Dataset B: bOrganizations × bRowsPerOrg, measured on the first organization. */
async function datasetB(backend: Backend, tmpRoot: string, out: ScaleResult): Promise<void> {
  const t = await createTarget(backend, join(tmpRoot, `${backend}-b`));
  let orgs: SeededOrg[] = [];
  let terms: string[] = [];
  let seedEnd: Date | undefined;
  await withHandle(t, async (h) => {
    const vocabulary = await prepareSchema(h.db);
    orgs = await seedOrganizations(h.db, options.bOrganizations);
    const since = performance.now();
    for (const org of orgs) await seedTeardowns(h.db, org, options.bRowsPerOrg, org.index * options.bRowsPerOrg, vocabulary);
    log(
      `[${backend}] B: seeded ${(options.bOrganizations * options.bRowsPerOrg).toLocaleString('en-US')} rows in ${seconds(since).toFixed(1)} s`,
    );
    terms = await selectiveTerms(h, orgs[0].orgId);
    seedEnd = await databaseNow(h);
  });
  const tableRows = options.bOrganizations * options.bRowsPerOrg;
  out.b = await measureSize(t, `B ${tableRows.toLocaleString('en-US')}`, orgs[0], options.bRowsPerOrg, tableRows, seedEnd!, terms, false);
}

/** Whether autovacuum could analyze the seeded table at all (if off, only the service's own pass can). */
async function autovacuumSetting(): Promise<string> {
  const client = new pg.Client({ connectionString: options.postgresUrl, application_name: 'partner-api-bench-scale' });
  try {
    await client.connect();
    return (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0].autovacuum;
  } catch {
    return 'unknown';
  } finally {
    await client.end().catch(() => {});
  }
}

async function main(): Promise<number> {
  log(
    `${options.backends.join(' then ')}: sizes ${options.sizes.map((s) => s.toLocaleString('en-US')).join(', ')}; ${options.connections} connections, ${options.warmupSeconds}+${options.durationSeconds} s per probe`,
  );
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: projectRoot, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const tmpRoot = await mkdtemp(join(tmpdir(), 'partner-api-scale-'));
  cleanup.add(`remove ${tmpRoot}`, () => rm(tmpRoot, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 }));

  const results: ScaleResult[] = [];
  for (const backend of options.backends) {
    const out: ScaleResult = { backend, a: [], seedChunks: [] };
    results.push(out);
    try {
      await datasetA(backend, tmpRoot, out);
      if (options.datasetB) await datasetB(backend, tmpRoot, out);
    } catch (err) {
      out.error = errorText(err);
      log(`[${backend}] stopped: ${out.error}`);
      await stopAllChildren();
    }
  }

  const info = await runInfo('bench:scale', options.postgresUrl, `, autovacuum ${await autovacuumSetting()}`);
  await writeFile(options.outputPath, renderScale(info, options, results));
  spawnSync(join(projectRoot, 'node_modules/.bin/biome'), ['format', '--write', options.outputPath], { cwd: projectRoot, stdio: 'ignore' });
  log(`wrote ${options.outputPath}`);
  return results.every((r) => !r.error) ? 0 : 1;
}

runToCompletion(main, { log, cleanup, timeoutMinutes: options.timeoutMinutes });
