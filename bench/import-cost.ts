// What fastupdate = off on the trigram indexes (migration 0010) costs a bulk import, and what the
// search right after it gains. On PostgreSQL: 5,000 teardowns through the admin route (5 requests of
// the route's 1,000-item maximum), alternately with the GIN pending lists on and off, on one growing
// table; then the search of the list endpoint's `search`, first run right after the import.
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/import-cost.ts [runs]
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { TRIGRAM_INDEXES } from '../src/db/migrations/0010_gin_fastupdate_off.js';
import { createPostgresDatabase } from './databases.js';

const TOKEN = 'bench-admin-token-0123456789';
const runs = Number(process.argv[2] ?? 3);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const pgdb = await createPostgresDatabase(adminUrl);
try {
  const handle = await openDatabase({ url: pgdb.url, poolSize: 4 });
  await migrateToLatest(handle.db);
  const app = await buildApp(
    loadConfig({
      DATABASE_URL: pgdb.url,
      ADMIN_TOKEN: TOKEN,
      JOBS_INTERVAL_SECONDS: '0',
      MAINTENANCE_INTERVAL_SECONDS: '0',
      LOG_LEVEL: 'silent',
      DEMO_ON_FIRST_START: 'false',
    }),
    { database: handle, logger: false },
  );
  await app.ready();
  const admin = (url: string, payload: unknown) =>
    app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${TOKEN}` }, payload: payload as object });
  const org = (await admin('/admin/v1/organizations', { name: 'Bench import' })).json().id;
  const user = (await admin(`/admin/v1/organizations/${org}/users`, { email: 'bench@example.com', capabilities: ['seller'] })).json().id;
  let n = 0;
  const item = () => {
    n++;
    return {
      asset_type: 'aircraft',
      status: 'active_in_process',
      start_date: '2026-03-01',
      location: 'Toulouse',
      country: 'FR',
      aircraft_type: 'A320-200',
      msn: `MSN${n}`,
      tail_number: `F-${(n * 7919).toString(36).toUpperCase().slice(-4)}`,
      description: `Teardown ${n} of an A320 airframe, engines removed, landing gear ${n % 3 === 0 ? 'sold' : 'available'}`,
    };
  };
  const results: Record<string, number[]> = { on: [], off: [] };
  for (let run = 0; run < runs * 2; run++) {
    const mode = run % 2 === 0 ? 'on' : 'off';
    for (const index of TRIGRAM_INDEXES) await sql`ALTER INDEX ${sql.raw(index)} SET (fastupdate = ${sql.raw(mode)})`.execute(handle.db);
    const started = performance.now();
    for (let request = 0; request < 5; request++) {
      const res = await admin('/admin/v1/import/teardowns', { org_id: org, created_by: user, items: Array.from({ length: 1000 }, item) });
      if (res.statusCode !== 201) throw new Error(`import: ${res.statusCode} ${res.body}`);
    }
    const ms = performance.now() - started;
    results[mode].push(ms);
    // The list endpoint's search (teardowns/repository.ts `matching`), right after the import: on, it reads the pending lists.
    const search = async () => {
      const t0 = performance.now();
      await sql`SELECT count(*) FROM teardowns WHERE org_id = ${org} AND status <> 'archived' AND (msn ILIKE ${'%MSN12%'} OR tail_number ILIKE ${'%MSN12%'} OR description ILIKE ${'%MSN12%'})`.execute(
        handle.db,
      );
      return performance.now() - t0;
    };
    const searches = [await search(), await search(), await search()];
    const a0 = performance.now();
    await sql`ANALYZE teardowns`.execute(handle.db);
    const analyzeMs = performance.now() - a0;
    console.log(
      `fastupdate=${mode}: 5,000 items in ${ms.toFixed(0)} ms (table ${n} rows); search after it ${searches.map((x) => x.toFixed(1)).join(', ')} ms; one ANALYZE ${analyzeMs.toFixed(0)} ms`,
    );
    // Leave every run the same start: what a run left pending is merged before the next.
    for (const index of TRIGRAM_INDEXES) await sql`SELECT gin_clean_pending_list(${index}::regclass)`.execute(handle.db);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`median: fastupdate=on ${median(results.on).toFixed(0)} ms, off ${median(results.off).toFixed(0)} ms per 5,000 items`);
  await app.close();
  await handle.close();
} finally {
  await pgdb.drop();
}
