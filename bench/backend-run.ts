// One backend's whole run: seed (two phases), small-table probe, floors and scenarios side by side,
// the large upload, EXPLAIN. Everything started here is registered for cleanup before it is used.
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_DEADLINES } from '../src/db/database.js';
import { maintainOnce } from '../src/db/maintenance.js';
import { openConfiguredDatabase } from '../src/db/open-configured.js';
import { type BigUploadResult, measureBigUpload } from './big-upload.js';
import { type Cleanup, errorText, type Log } from './cleanup.js';
import { createPostgresDatabase, pgliteDirOf } from './databases.js';
import { PROBE_ORG, planDataset, seedPhaseOne, seedPhaseTwo, selectPools } from './dataset.js';
import { type ExplainedQuery, explainListQueries } from './explain.js';
import { type ImportResult, importTeardowns } from './import.js';
import { type LoadSettings, type LoadSpec, type Measurement, measure } from './load.js';
import type { Backend, BenchOptions } from './options.js';
import { type Child, freePort } from './processes.js';
import {
  type FloorKey,
  preparedScenarios,
  probeScenario,
  readScenarios,
  type Scenario,
  type ScenarioContext,
  searchScenarios,
  uploadScenario,
  writeScenarios,
} from './scenarios.js';
import { type DatabaseTarget, type FloorDatabase, startFloor, startService } from './service.js';

/** The read scenarios measured with options.byIdSegments per side. */
const BY_ID = new Set(['get-teardown', 'get-listing']);

export interface ScenarioResult {
  id: string;
  title: string;
  kind: Scenario['kind'];
  /** Which group of the report it belongs to. */
  group: 'read' | 'prepared' | 'variant' | 'write' | 'import';
  service?: Measurement;
  floor?: Measurement;
  floorProcess?: FloorKey;
  /** Why the scenario produced no numbers (an endpoint missing, a process that died...). */
  error?: string;
}

export interface BackendResult {
  backend: Backend;
  floorsOn: string;
  counts: { teardowns: number; listings: number; organizations: number };
  seedSeconds: number;
  deepPage: number;
  scenarios: ScenarioResult[];
  probe: { smallRows: number; fullRows: number; small?: Measurement; full?: Measurement; error?: string };
  bigUpload?: BigUploadResult;
  bigUploadError?: string;
  bulkImport?: ImportResult;
  explain: ExplainedQuery[];
  /** Set when the run stopped part-way; what was measured before is kept. */
  error?: string;
}

export async function runBackend(backend: Backend, o: BenchOptions, tmpRoot: string, cleanup: Cleanup, log: Log): Promise<BackendResult> {
  const dataDir = join(tmpRoot, backend);
  await mkdir(dataDir, { recursive: true });
  const target: DatabaseTarget = { backend, dataDir };
  if (backend === 'postgres') {
    const database = await createPostgresDatabase(o.postgresUrl);
    cleanup.add(`drop database ${database.name}`, () => database.drop());
    target.url = database.url;
    log(`created database ${database.name}`);
  }
  // The service's own opener: the real migrator, and for PGlite the one-process data-directory lock.
  const open = () => openConfiguredDatabase({ databaseUrl: target.url, dataDir, dbPoolSize: 10 });
  // Seeding without the statement deadline (as bench/scale.ts): one seed statement writes up to
  // 100,000 rows, which a slow moment of a shared two-core machine can stretch past the 10 s a
  // request gets (seen: a run stopped by "canceling statement due to statement timeout").
  const openForSeeding = () =>
    openConfiguredDatabase({
      databaseUrl: target.url,
      dataDir,
      dbPoolSize: 10,
      db: { ...DEFAULT_DEADLINES, statementTimeoutMs: 0, startupTimeoutSeconds: 0 },
    });
  // After a seed, what a started service does by itself within MAINTENANCE_INTERVAL_SECONDS: its own
  // maintenance pass (statistics; on PGlite also VACUUM), from a fresh connection, once the seeding
  // connection has closed and published its counters. Never a manual VACUUM ANALYZE of the bench's.
  const settle = async () => {
    const h = await open();
    try {
      const ran = await maintainOnce(h.db, backend);
      log(`service maintenance pass after the seed: ${ran.map((a) => `${a.kind} ${a.table}`).join(', ') || 'nothing to do'}`);
    } finally {
      await h.close();
    }
  };
  const settings: LoadSettings = { connections: o.connections, warmupSeconds: o.warmupSeconds, durationSeconds: o.durationSeconds };
  const servicePort = await freePort();
  const wanted = (id: string) => !o.only || o.only.includes(id);

  // Phase one: the probe organization alone, measured while the table holds only its rows.
  const plan = planDataset(o);
  const seedStart = performance.now();
  let handle = await openForSeeding();
  const state = await seedPhaseOne(handle.db, o, plan).finally(() => handle.close());
  await settle();
  let seedSeconds = (performance.now() - seedStart) / 1000;
  const ctxBase = {
    orgs: state.orgs,
    uploadBytes: o.uploadBytes,
    serviceUrl: `http://127.0.0.1:${servicePort}`,
    aircraftType: { name: state.vocabulary.aircraft_type.names[0], id: state.vocabulary.aircraft_type.ids[0] },
  };
  const probe: BackendResult['probe'] = { smallRows: plan.teardownsPerOrg[PROBE_ORG], fullRows: o.teardowns };
  if (wanted('probe')) {
    probe.small = await withService(target, servicePort, (service) =>
      measure(service.baseUrl, probeScenario(state.orgs), settings, service.pid),
    ).catch((err) => {
      probe.error = errorText(err);
      return undefined;
    });
    log(`probe at ${probe.smallRows} rows: ${summary(probe.small)}`);
  }

  // Phase two: everything else, then the ids the scenarios rotate over and the query plans.
  const phaseTwo = performance.now();
  handle = await openForSeeding();
  await seedPhaseTwo(handle.db, plan, state).finally(() => handle.close());
  seedSeconds += (performance.now() - phaseTwo) / 1000;
  await settle();
  handle = await open();
  let pools: Awaited<ReturnType<typeof selectPools>>;
  let explain: ExplainedQuery[] = [];
  try {
    pools = await selectPools(handle.db, state.orgs, o.connections);
    log(`seeded ${pools.counts.teardowns} teardowns, ${pools.counts.listings} listings in ${seedSeconds.toFixed(1)} s`);
    explain = await explainListQueries(handle.db, state.orgs, pools);
  } finally {
    await handle.close();
  }

  const floorDb: FloorDatabase = { url: target.url, uploadDir: join(dataDir, 'floor-uploads') };
  // PGlite admits one process per data directory: the floor reads an identical copy, taken while no
  // process has the original open, so both start from the same state.
  const copyForFloor = async () => {
    if (backend !== 'pglite') return;
    floorDb.pgliteDir = join(tmpRoot, 'pglite-floor');
    await rm(floorDb.pgliteDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
    await cp(pgliteDirOf(dataDir), floorDb.pgliteDir, { recursive: true });
  };
  await copyForFloor();

  const ctx: ScenarioContext = { ...ctxBase, pools };
  const result: BackendResult = {
    backend,
    floorsOn:
      backend === 'postgres'
        ? "the same PostgreSQL database, through a pool opened with the service's own settings (src/db/database.ts postgresPoolConfig, 10 connections)"
        : "an identical copy of the service's PGlite data directory, taken while neither process had it open, through the service's own node-postgres adapter settings",
    counts: { ...pools.counts, organizations: o.organizations },
    seedSeconds,
    deepPage: pools.deepPage,
    scenarios: [],
    probe,
    explain,
  };

  let service: Child | undefined;
  let floor: Child | undefined;
  const startReads = async (env: Record<string, string | undefined> = {}) => {
    service = await startService(target, servicePort, env);
    floor ??= await startFloor('reads', floorDb, await freePort());
  };
  const stopAll = async () => {
    await service?.stop();
    await floor?.stop();
    service = undefined;
    floor = undefined;
  };
  let order = 0;

  /**
   * A read scenario against its floor, A/B alternated inside the scenario (floor, service, service,
   * floor, or the mirror order for every other scenario), each segment with its own warm-up: a
   * neighbour's burst or a cache that warms during the run weighs on both sides alike.
   */
  const runScenario = async (s: Scenario, group: ScenarioResult['group'], idSuffix = '', titleSuffix = '') => {
    if (!wanted(s.id) && !wanted(s.id + idSuffix) && !(group === 'import' && wanted('import'))) return;
    const r: ScenarioResult = { id: s.id + idSuffix, title: s.title + titleSuffix, kind: s.kind, group, floorProcess: s.floor?.process };
    result.scenarios.push(r);
    try {
      if (!service) throw new Error('the service is not running');
      const serviceSide = s.serviceOnFloor ? floor! : service;
      const measureService = () => measure(serviceSide.baseUrl, s.service, settings, serviceSide.pid);
      if (!s.floor) {
        r.service = await measureService();
      } else {
        const floorSpec = s.floor.spec;
        const floorSide = s.floor.process === 'reads' ? floor! : undefined;
        const measureFloor = floorSide
          ? () => measure(floorSide.baseUrl, floorSpec, settings, floorSide.pid)
          : () => withFloor(s.floor!.process, floorDb, floorSpec, settings);
        const serviceRuns: Measurement[] = [];
        const floorRuns: Measurement[] = [];
        const round = order++ % 2 === 0 ? ['floor', 'service', 'service', 'floor'] : ['service', 'floor', 'floor', 'service'];
        const segments = group === 'read' && BY_ID.has(s.id) ? o.byIdSegments : o.segments;
        const sides = Array.from({ length: segments / 2 }, () => round).flat();
        for (const side of sides) {
          if (side === 'floor') floorRuns.push(await measureFloor());
          else serviceRuns.push(await measureService());
        }
        r.service = combine(serviceRuns);
        r.floor = combine(floorRuns);
      }
    } catch (err) {
      r.error = errorText(err);
    }
    log(`${r.id}: ${summary(r.service)}${r.floor ? ` | floor ${summary(r.floor)}` : ''}${r.error ? ` | error: ${r.error}` : ''}`);
  };

  const measured = (async () => {
    await startReads();
    for (const s of readScenarios(ctx)) await runScenario(s, 'read');
    // PGlite's adapter sends everything unnamed: the comparison exists on PostgreSQL only.
    if (backend === 'postgres') for (const s of preparedScenarios(ctx)) await runScenario(s, 'prepared');
    if (wanted('probe') && service) {
      const svc = service;
      probe.full = await measure(svc.baseUrl, probeScenario(state.orgs), settings, svc.pid).catch((err) => {
        probe.error = errorText(err);
        return undefined;
      });
      log(`probe at ${probe.fullRows} rows: ${summary(probe.full)}`);
    }

    // The same reads with the settings an operator may run: no auth cache (against a floor that sends
    // the key lookup before each read, as that service does), the default log level.
    const variants: { env: Record<string, string | undefined>; id: string; title: string; floorPrefix: string }[] = [
      {
        env: { AUTH_CACHE_SECONDS: '0' },
        id: '@auth-cache-0',
        title: ', AUTH_CACHE_SECONDS=0 (floor: key lookup + read)',
        floorPrefix: '/key-lookup',
      },
      { env: { LOG_LEVEL: undefined }, id: '@default-log-level', title: ', default log level (info)', floorPrefix: '' },
    ];
    for (const v of variants) {
      const variantReads = readScenarios(ctx, v.floorPrefix).filter((s) => s.id === 'get-teardown' || s.id === 'list-plain');
      if (!variantReads.some((s) => wanted(s.id + v.id))) continue;
      await service?.stop();
      service = await startService(target, servicePort, v.env);
      for (const s of variantReads) await runScenario(s, 'variant', v.id, v.title);
    }
    await service?.stop();
    service = await startService(target, servicePort);

    for (const s of writeScenarios(ctx)) await runScenario(s, 'write');
    await runScenario(uploadScenario(ctx), 'write');
    // The stored 1 MB files are not needed any more and the disk is shared. Uploads cut off at the
    // end of the run may still be landing, so a failure here only costs disk space until the end.
    await rm(join(dataDir, 'storage'), { recursive: true, force: true, maxRetries: 10, retryDelay: 300 }).catch((err) =>
      log(`could not remove the uploaded files yet: ${errorText(err)}`),
    );

    if (wanted('upload-50mb')) {
      const r = pools.uploads[0];
      const org = state.orgs[r.org];
      result.bigUpload = await measureBigUpload(
        `${service.baseUrl}/public/v1/teardown/documents/${r.id}`,
        { authorization: `Bearer ${org.key}`, 'x-organization-id': org.orgId },
        o.bigUploadBytes,
        service.pid,
      ).catch((err) => {
        result.bigUploadError = errorText(err);
        return undefined;
      });
      const b = result.bigUpload;
      log(
        b
          ? `50 MB upload: HTTP ${b.status}, idle ${b.idlePeakMb.toFixed(1)} MB, peak ${b.uploadPeakMb.toFixed(1)} MB`
          : `50 MB upload failed: ${result.bigUploadError}`,
      );
    }

    // Last: a bulk import through the admin API into empty organizations, then at once the
    // searches a partner runs on what was imported, against the floor on the same data.
    const targets = state.orgs.filter((org) => org.importTarget);
    if (wanted('import') && targets.length > 0) {
      result.bulkImport = await importTeardowns(service.baseUrl, targets, o.importRows, state.vocabulary, log);
      if (backend === 'pglite') {
        // The floor needs its own copy of the imported data: both processes stop (PGlite writes its
        // statistics and a checkpoint on a clean stop, as PostgreSQL would), the copy is taken, both start.
        await stopAll();
        await copyForFloor();
        await startReads();
      }
      for (const s of searchScenarios(state.orgs, result.bulkImport.searches, 'import-', ', right after a bulk import')) {
        await runScenario(s, 'import');
      }
    }
  })().finally(stopAll);

  await measured.catch((err) => {
    result.error = errorText(err);
    log(`stopped early: ${result.error}`);
  });
  await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
  if (floorDb.pgliteDir) await rm(floorDb.pgliteDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
  return result;
}

async function withService<T>(target: DatabaseTarget, port: number, use: (service: Child) => Promise<T>): Promise<T> {
  const service = await startService(target, port);
  try {
    return await use(service);
  } finally {
    await service.stop();
  }
}

async function withFloor(key: FloorKey, db: FloorDatabase, spec: LoadSpec, settings: LoadSettings): Promise<Measurement> {
  const floor = await startFloor(key, db, await freePort());
  try {
    return await measure(floor.baseUrl, spec, settings, floor.pid);
  } finally {
    await floor.stop();
    await rm(db.uploadDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
  }
}

/** Two measured segments of one side as one: rates and latencies averaged, counts summed. */
function combine(runs: Measurement[]): Measurement {
  const [first] = runs;
  const mean = (pick: (m: Measurement) => number) => runs.reduce((sum, m) => sum + pick(m), 0) / runs.length;
  const sum = (pick: (m: Measurement) => number) => runs.reduce((total, m) => total + pick(m), 0);
  const statusCodes: Record<string, number> = {};
  for (const m of runs) for (const [code, count] of Object.entries(m.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const peaks = runs.map((m) => m.peakRssMb).filter((v): v is number => v !== undefined);
  const rates = runs.map((m) => m.mbPerSecond).filter((v): v is number => v !== undefined);
  return {
    ...first,
    rps: mean((m) => m.rps),
    p50: Math.round(mean((m) => m.p50) * 10) / 10,
    p99: Math.round(mean((m) => m.p99) * 10) / 10,
    completed: sum((m) => m.completed),
    ok: sum((m) => m.ok),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    timeouts: sum((m) => m.timeouts),
    statusCodes,
    durationSeconds: sum((m) => m.durationSeconds),
    ...(rates.length ? { mbPerSecond: rates.reduce((a, b) => a + b, 0) / rates.length } : {}),
    ...(peaks.length ? { peakRssMb: Math.max(...peaks) } : {}),
  };
}

function summary(m?: Measurement): string {
  if (!m) return 'no result';
  const failed = m.errors + m.timeouts ? `, errors ${m.errors}, timeouts ${m.timeouts}` : '';
  return `${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx}/${m.completed}${failed}`;
}
