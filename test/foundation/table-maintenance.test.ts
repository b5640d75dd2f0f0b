// Table maintenance (db/maintenance.ts, jobs/maintenance.ts, migration 0010): searches are planned on
// fresh statistics and read no GIN pending list, on both backends; PGlite, which has no autovacuum,
// and a PostgreSQL server running without it, are vacuumed by the service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountsRepository } from '../../src/accounts/repository.js';
import { MAINTENANCE_LOCK, type MaintainedTable, type MaintenanceAction, maintainOnce } from '../../src/db/maintenance.js';
import { openConfiguredDatabase } from '../../src/db/open-configured.js';
import { createMaintenance } from '../../src/jobs/maintenance.js';
import type { DependencyHealth } from '../../src/observability/dependencies.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { backend, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown, importTeardowns, teardownBody } from '../helpers/teardowns.js';

// Each test builds its own app (statistics are per database): migrations and seeding inside the test.
vi.setConfig({ testTimeout: 120_000 });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function open(env: Record<string, string> = {}): Promise<TestApp> {
  t = await createTestApp({ env });
  return t;
}

async function tableStats(app: TestApp, table: string) {
  const { rows } = await sql<{ last_analyze: Date | null; n_dead_tup: number; reltuples: number }>`
    SELECT s.last_analyze, s.n_dead_tup, c.reltuples
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.relname = ${table}`.execute(app.database.db);
  return rows[0];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Passes until `done` holds for what they ran together (answered). On PostgreSQL a backend publishes
 * its write counters when it goes idle, but no sooner than a second after its last publication (else
 * after 10 idle seconds): a pass right after the writes may not see them yet. PGlite's are flushed by
 * the pass itself.
 */
async function passUntil(app: TestApp, done: (actions: MaintenanceAction[]) => boolean): Promise<MaintenanceAction[]> {
  const deadline = Date.now() + 20_000;
  const all: MaintenanceAction[] = [];
  for (;;) {
    all.push(...(await app.app.ctx.maintenance.runOnce()));
    if (done(all) || Date.now() > deadline) return all;
    await sleep(250);
  }
}

/** Waits until the table's published counters show `modified` changes since its last ANALYZE. */
async function published(app: TestApp, table: string, modified: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (backend() === 'pglite') await sql`SELECT pg_stat_force_next_flush()`.execute(app.database.db);
    const { rows } = await sql<{ n: number }>`SELECT n_mod_since_analyze AS n FROM pg_stat_user_tables WHERE relname = ${table}`.execute(
      app.database.db,
    );
    if (Number(rows[0]?.n) >= modified || Date.now() > deadline) return;
    await sleep(250);
  }
}

const ran = (actions: MaintenanceAction[], table: MaintainedTable, kind: MaintenanceAction['kind']) =>
  actions.some((a) => a.table === table && a.kind === kind);

const metricValue = async (app: TestApp, table: string, kind: string) => {
  const body = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = body.split('\n').find((l) => l.startsWith(`table_maintenance_total{table="${table}",kind="${kind}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
};

const items = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({
    ...teardownBody(),
    status: 'active_in_process',
    msn: `MSN${from + i}`,
    tail_number: `F-${String(from + i).padStart(4, '0')}`,
    description: `Airframe ${from + i}, engines removed`,
  }));

describe('trigram indexes', () => {
  it('every GIN index updates in place (fastupdate = off): no pending list for searches to scan', async () => {
    const app = await open();
    const { rows } = await sql<{ index: string; options: string[] | null }>`
      SELECT c.relname AS index, c.reloptions AS options
        FROM pg_class c JOIN pg_am am ON am.oid = c.relam
       WHERE am.amname = 'gin' AND c.relnamespace = current_schema()::regnamespace
       ORDER BY c.relname`.execute(app.database.db);
    expect(rows.map((r) => r.index)).toEqual([
      'listings_condition_trgm_idx',
      'listings_country_trgm_idx',
      'listings_description_trgm_idx',
      'listings_msn_trgm_idx',
      'listings_title_trgm_idx',
      'teardowns_country_trgm_idx',
      'teardowns_description_trgm_idx',
      'teardowns_msn_trgm_idx',
      'teardowns_tail_number_trgm_idx',
    ]);
    for (const { index, options } of rows) expect(options, index).toContain('fastupdate=off');
  });
});

describe('ANALYZE after an admin import', () => {
  it('the table has statistics when the import answers, and the search right after it is right', async () => {
    const app = await open();
    const seller = await createSeller(app);
    await importTeardowns(app, seller, items(1000));
    await importTeardowns(app, seller, items(1000, 1000));

    // Read right after the answers: the import analyzed before answering.
    const stats = await tableStats(app, 'teardowns');
    expect(stats.last_analyze).not.toBeNull();
    expect(stats.reltuples).toBeGreaterThan(1900);
    expect(await metricValue(app, 'teardowns', 'analyze')).toBe(2);

    const res = await app.app.inject({ method: 'GET', url: '/public/v1/teardowns?search=MSN1234', headers: seller.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().total).toBe(1);
    expect(res.json().items[0].msn).toBe('MSN1234');
    expect((await app.app.inject({ method: 'GET', url: '/public/v1/teardowns?search=MSN123', headers: seller.headers })).json().total).toBe(
      11, // MSN123 and MSN1230..MSN1239
    );
  });

  it('a small import into a table whose statistics are fresh answers without an ANALYZE; a large one analyzes', async () => {
    const app = await open();
    const seller = await createSeller(app);
    await importTeardowns(app, seller, items(1000));
    await importTeardowns(app, seller, items(1000, 1000));
    expect(await metricValue(app, 'teardowns', 'analyze')).toBeGreaterThanOrEqual(2);
    // On PostgreSQL the importing connection publishes its counters up to a second later, possibly
    // after the ANALYZE: they then read as changes since it. Let them arrive and a pass act on them.
    if (backend() === 'postgres') await sleep(1500);
    await app.app.ctx.maintenance.runOnce();
    const settled = await metricValue(app, 'teardowns', 'analyze');
    // 20 rows: far under 50 + 5 % of 2,000, the statistics still describe the table.
    await importTeardowns(app, seller, items(20, 2000));
    expect(await metricValue(app, 'teardowns', 'analyze')).toBe(settled);
    await importTeardowns(app, seller, items(500, 2020));
    expect(await metricValue(app, 'teardowns', 'analyze')).toBe(settled + 1);
  });

  it('an ANALYZE that fails is logged, never thrown: the import it follows is committed', async () => {
    const app = await open();
    await expect(app.app.ctx.maintenance.afterBulkWrite('no_such_table' as MaintainedTable, 1000)).resolves.toBeUndefined();
  });
});

describe('periodic pass', () => {
  it('analyzes a table after many small creates through the API', async () => {
    const app = await open();
    const seller = await createSeller(app);
    await passUntil(app, (actions) => ran(actions, 'api_keys', 'analyze')); // the key minted above: rows never analyzed
    for (let i = 0; i < 60; i++) await createTeardown(app, seller, { msn: `MSN${i}` });
    expect((await tableStats(app, 'teardowns')).last_analyze).toBeNull();

    const actions = await passUntil(app, (a) => ran(a, 'teardowns', 'analyze'));
    expect(ran(actions, 'teardowns', 'analyze')).toBe(true);
    const stats = await tableStats(app, 'teardowns');
    expect(stats.last_analyze).not.toBeNull();
    expect(stats.reltuples).toBe(60);
    expect(await metricValue(app, 'teardowns', 'analyze')).toBe(1);
  });

  it('a pass with nothing to do runs nothing', async () => {
    const app = await open();
    const seller = await createSeller(app);
    await createTeardown(app, seller);
    await passUntil(app, (actions) => ran(actions, 'teardowns', 'analyze') && ran(actions, 'api_keys', 'analyze'));
    // A few writes, far under 50 + 5 % of the table: no new statistics are worth their cost.
    for (let i = 0; i < 3; i++) await createTeardown(app, seller);
    await published(app, 'teardowns', 3);
    expect(await app.app.ctx.maintenance.runOnce()).toEqual([]);
    expect(await metricValue(app, 'teardowns', 'analyze')).toBe(1);
  });

  it('vacuums after a PATCH storm where no autovacuum does: PGlite, or a server with autovacuum off', async () => {
    const app = await open();
    const seller: Principal = await createSeller(app);
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await createTeardown(app, seller)).teardown_id);
    await passUntil(app, (actions) => ran(actions, 'teardowns', 'analyze'));
    for (let round = 0; round < 12; round++) {
      for (const id of ids) {
        const res = await app.app.inject({
          method: 'PATCH',
          url: `/public/v1/teardowns/${id}`,
          headers: seller.headers,
          payload: { description: `round ${round}` },
        });
        expect(res.statusCode).toBe(200);
      }
    }
    if (backend() === 'pglite') {
      await sql`SELECT pg_stat_force_next_flush()`.execute(app.database.db);
      const before = (await tableStats(app, 'teardowns')).n_dead_tup;
      expect(before).toBeGreaterThan(50 + 0.1 * ids.length);
      const actions = await app.app.ctx.maintenance.runOnce();
      expect(ran(actions, 'teardowns', 'vacuum')).toBe(true);
      expect((await tableStats(app, 'teardowns')).n_dead_tup).toBeLessThan(before);
      expect(await metricValue(app, 'teardowns', 'vacuum')).toBe(1);
      return;
    }
    // A server setting (sighup): a test cannot change it for its own database, so it follows it.
    const { rows } = await sql<{ on: boolean }>`
      SELECT current_setting('autovacuum')::boolean AND current_setting('track_counts')::boolean AS on`.execute(app.database.db);
    if (rows[0].on) {
      const actions = await passUntil(app, (a) => ran(a, 'teardowns', 'analyze'));
      expect(actions.filter((a) => a.kind === 'vacuum')).toEqual([]);
    } else {
      expect(ran(await passUntil(app, (a) => ran(a, 'teardowns', 'vacuum')), 'teardowns', 'vacuum')).toBe(true);
      expect((await tableStats(app, 'teardowns')).n_dead_tup).toBeLessThan(50);
      expect(await metricValue(app, 'teardowns', 'vacuum')).toBeGreaterThanOrEqual(1);
    }
  });
});

describe.runIf(backend() === 'postgres')('several instances on one PostgreSQL', () => {
  it('only the instance holding the maintenance lock runs a pass; the others run nothing', async () => {
    const app = await open();
    await createSeller(app); // an api_keys row never analyzed: work for a pass
    await app.database.db.connection().execute(async (other) => {
      // Another instance's pass, as PostgreSQL sees it: the session lock on its connection.
      await sql`SELECT pg_advisory_lock(${MAINTENANCE_LOCK})`.execute(other);
      try {
        await published(app, 'api_keys', 1);
        expect(await app.app.ctx.maintenance.runOnce()).toEqual([]);
      } finally {
        await sql`SELECT pg_advisory_unlock(${MAINTENANCE_LOCK})`.execute(other);
      }
    });
    expect(ran(await passUntil(app, (a) => ran(a, 'api_keys', 'analyze')), 'api_keys', 'analyze')).toBe(true);
    // Released after the pass: the next one can take it.
    const { rows } = await sql<{
      held: number;
    }>`SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND objid = ${MAINTENANCE_LOCK} AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(
      app.database.db,
    );
    expect(rows[0].held).toBe(0);
  });
});

describe.runIf(backend() === 'pglite')('embedded database: a pass gives way to requests', () => {
  /** A maintenance job on the app's database, as the app builds it, with the given view of the queue. */
  const job = (app: TestApp, databaseWaiting: () => number, maxDeferralMs?: number) =>
    createMaintenance({
      db: app.database.db,
      dbKind: 'pglite',
      metrics: createMetrics(),
      health: { down: vi.fn(), up: vi.fn() } as unknown as DependencyHealth,
      lifecycle: { draining: false },
      log: { info: vi.fn(), warn: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger,
      databaseWaiting,
      maxDeferralMs,
    });

  it('waits while requests are queued for the database, and runs once none is', async () => {
    const app = await open({ RATE_LIMIT_PER_MINUTE: '1000000' });
    const seller = await createSeller(app); // an api_keys row never analyzed: work for a pass
    let burstOver = false;
    let burstEndedFirst: boolean | undefined;
    // Twenty clients listing at once for a second keep requests queued on the one connection.
    const burst = (async () => {
      const until = Date.now() + 1000;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (Date.now() < until) {
            const res = await app.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers });
            expect(res.statusCode).toBe(200);
          }
        }),
      );
      burstOver = true;
    })();
    while ((app.database.waiting?.() ?? 0) === 0) await sleep(5);
    const pass = app.app.ctx.maintenance.runOnce().then((actions) => {
      burstEndedFirst = burstOver;
      return actions;
    });
    await burst;
    expect(ran(await pass, 'api_keys', 'analyze')).toBe(true);
    expect(burstEndedFirst).toBe(true);
  });

  it('runs anyway once it has waited its longest, when the database never goes quiet', async () => {
    const app = await open();
    await createSeller(app);
    const actions = await job(app, () => 1, 100).runOnce();
    expect(ran(actions, 'api_keys', 'analyze')).toBe(true);
  });

  it('a pass waiting for a quiet database gives up when the instance stops', async () => {
    const app = await open();
    await createSeller(app);
    const maintenance = job(app, () => 1, 600_000);
    const pass = maintenance.runOnce();
    await sleep(50);
    await maintenance.stop();
    expect(await pass).toEqual([]);
  });
});

describe('MAINTENANCE_INTERVAL_SECONDS', () => {
  it('runs passes on its own every interval', async () => {
    const app = await open({ MAINTENANCE_INTERVAL_SECONDS: '1' });
    await createSeller(app);
    const deadline = Date.now() + 15_000;
    while ((await metricValue(app, 'api_keys', 'analyze')) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await metricValue(app, 'api_keys', 'analyze')).toBe(1);
  });

  it('0 disables the timer', async () => {
    const app = await open({ MAINTENANCE_INTERVAL_SECONDS: '0' });
    await createSeller(app);
    await published(app, 'api_keys', 1); // what a running timer would act on within its next second
    await sleep(2000);
    expect(await metricValue(app, 'api_keys', 'analyze')).toBe(0);
    expect((await tableStats(app, 'api_keys')).last_analyze).toBeNull();
  });
});

describe.skipIf(backend() !== 'pglite')('maintenance after a restart (PGlite starts every process with empty counters)', () => {
  it('analyzes and vacuums what an earlier process wrote, then leaves the table alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'partner-api-maintenance-'));
    try {
      const first = await openConfiguredDatabase({ dataDir, dbPoolSize: 1 });
      try {
        const accounts = accountsRepository(first.db);
        const org = await accounts.createOrganization({ name: 'Restart Aero' });
        const user = await accounts.createUser(org.id, { email: 'ops@restart.example', capabilities: ['seller'] });
        await sql`
          INSERT INTO idempotency_keys (org_id, user_id, key, state, lease_token, lease_expires_at, created_at)
          SELECT ${org.id}::uuid, ${user!.id}::uuid, 'key-' || g, 'running', gen_random_uuid(), now(), now()
            FROM generate_series(1, 3000) g`.execute(first.db);
      } finally {
        await first.close();
      }
      const second = await openConfiguredDatabase({ dataDir, dbPoolSize: 1 });
      try {
        const { rows } = await sql<{
          n: number;
        }>`SELECT n_mod_since_analyze AS n FROM pg_stat_user_tables WHERE relname = 'idempotency_keys'`.execute(second.db);
        expect(Number(rows[0].n)).toBe(0); // what the counters no longer know
        const ran = await maintainOnce(second.db, 'pglite');
        expect(ran).toContainEqual({ table: 'idempotency_keys', kind: 'analyze' });
        expect(ran).toContainEqual({ table: 'idempotency_keys', kind: 'vacuum' });
        expect((await maintainOnce(second.db, 'pglite')).filter((a) => a.table === 'idempotency_keys')).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
