// One backend's whole run: seed (two phases), small-table probe, floors and scenarios side by side,
// the large upload, EXPLAIN. Everything started here is registered for cleanup before it is used.
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openConfiguredDatabase } from '../src/db/open-configured.js';
import { type BigUploadResult, measureBigUpload } from './big-upload.js';
import { type Cleanup, errorText, type Log } from './cleanup.js';
import { createPostgresDatabase, pgliteDirOf } from './databases.js';
import { PROBE_ORG, planDataset, seedPhaseOne, seedPhaseTwo, selectPools } from './dataset.js';
import { type ExplainedQuery, explainListQueries } from './explain.js';
import { type LoadSettings, type LoadSpec, type Measurement, measure } from './load.js';
import type { Backend, BenchOptions } from './options.js';
import { type Child, freePort } from './processes.js';
import {
  type FloorKey,
  probeScenario,
  readScenarios,
  type Scenario,
  type ScenarioContext,
  uploadScenario,
  writeScenarios,
} from './scenarios.js';
import { type DatabaseTarget, type FloorDatabase, startFloor, startService } from './service.js';

export interface ScenarioResult {
  id: string;
  title: string;
  kind: Scenario['kind'];
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
  const settings: LoadSettings = { connections: o.connections, warmupSeconds: o.warmupSeconds, durationSeconds: o.durationSeconds };
  const servicePort = await freePort();
  const wanted = (id: string) => !o.only || o.only.includes(id);

  // Phase one: the probe organization alone, measured while the table holds only its rows.
  const plan = planDataset(o);
  const seedStart = performance.now();
  let handle = await open();
  const state = await seedPhaseOne(handle.db, o, plan).finally(() => handle.close());
  let seedSeconds = (performance.now() - seedStart) / 1000;
  const ctxBase = { orgs: state.orgs, uploadBytes: o.uploadBytes, serviceUrl: `http://127.0.0.1:${servicePort}` };
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
  handle = await open();
  let pools: Awaited<ReturnType<typeof selectPools>>;
  let explain: ExplainedQuery[] = [];
  try {
    await seedPhaseTwo(handle.db, plan, state);
    seedSeconds += (performance.now() - phaseTwo) / 1000;
    pools = await selectPools(handle.db, state.orgs, o.connections);
    log(`seeded ${pools.counts.teardowns} teardowns, ${pools.counts.listings} listings in ${seedSeconds.toFixed(1)} s`);
    explain = await explainListQueries(handle.db, state.orgs, pools);
  } finally {
    await handle.close();
  }

  const floorDb: FloorDatabase = { url: target.url, uploadDir: join(dataDir, 'floor-uploads') };
  if (backend === 'pglite') {
    // PGlite admits one process per data directory: the floors read an identical copy.
    floorDb.pgliteDir = join(tmpRoot, 'pglite-floor');
    await cp(pgliteDirOf(dataDir), floorDb.pgliteDir, { recursive: true });
  }

  const ctx: ScenarioContext = { ...ctxBase, pools };
  const result: BackendResult = {
    backend,
    floorsOn:
      backend === 'postgres'
        ? 'the same PostgreSQL database (pg pool of 10, as the service)'
        : 'an identical copy of the seeded PGlite data directory, through the same node-postgres adapter as the service',
    counts: { ...pools.counts, organizations: o.organizations },
    seedSeconds,
    deepPage: pools.deepPage,
    scenarios: [],
    probe,
    explain,
  };

  const measured = withService(target, servicePort, async (service) => {
    const runScenario = async (s: Scenario) => {
      if (!wanted(s.id)) return;
      const r: ScenarioResult = { id: s.id, title: s.title, kind: s.kind, floorProcess: s.floor?.process };
      result.scenarios.push(r);
      try {
        // Floor first, then the service, back to back: a busy neighbour affects both alike.
        if (s.floor) r.floor = await withFloor(s.floor.process, floorDb, s.floor.spec, settings);
        r.service = await measure(service.baseUrl, s.service, settings, service.pid);
      } catch (err) {
        r.error = errorText(err);
      }
      log(`${s.id}: ${summary(r.service)}${r.floor ? ` | floor ${summary(r.floor)}` : ''}${r.error ? ` | error: ${r.error}` : ''}`);
    };

    for (const s of readScenarios(ctx)) await runScenario(s);
    if (wanted('probe')) {
      probe.full = await measure(service.baseUrl, probeScenario(state.orgs), settings, service.pid).catch((err) => {
        probe.error = errorText(err);
        return undefined;
      });
      log(`probe at ${probe.fullRows} rows: ${summary(probe.full)}`);
    }
    for (const s of writeScenarios(ctx)) await runScenario(s);
    await runScenario(uploadScenario(ctx));
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
  });

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

function summary(m?: Measurement): string {
  if (!m) return 'no result';
  return `${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx}/${m.completed}`;
}
