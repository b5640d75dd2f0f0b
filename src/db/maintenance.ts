// Table maintenance run by the service (docs/operations.md, "Table maintenance"): the statistics and
// vacuuming a PostgreSQL server's autovacuum would give, for the tables the service writes most.
//
// - ANALYZE, on both backends, sooner than autovacuum would (it waits for 10 % of a table to change):
//   the plans of the list and search queries depend on fresh statistics. Without any, a search right
//   after a bulk import filtered every row of the organization instead of using the trigram indexes.
// - VACUUM where nothing else would: embedded PostgreSQL (PGlite) has no autovacuum process at all,
//   and a PostgreSQL server may run with `autovacuum = off`. Without it dead tuples of PATCH storms
//   pile up and the visibility map is never set, so index-only scans visit the table for every
//   entry: a page at offset 500,000 of a 1,000,000-row organization took 1,950 ms instead of 90 ms.
//   Where the server's autovacuum is on, it does this and the service does not.
//
// The counters come from pg_stat_user_tables. PGlite fills them like any PostgreSQL (it is one
// backend); a backend publishes its counters when it goes idle, at most once a second, so PGlite's
// own are flushed before they are read, and on PostgreSQL a pass sees writes of the last seconds late.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/** The tables written often enough to matter; small, rarely written tables are left to autovacuum (or to nothing). */
export const MAINTAINED_TABLES = [
  'teardowns',
  // One row per (organization, status), rewritten by every create, transition and delete (0011).
  'teardown_counts',
  'listings',
  'audit_events',
  'events',
  'event_streams',
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'api_keys',
  'file_deletions',
] as const;
export type MaintainedTable = (typeof MAINTAINED_TABLES)[number];

export type MaintenanceKind = 'analyze' | 'vacuum';
export interface MaintenanceAction {
  table: MaintainedTable;
  kind: MaintenanceKind;
}

export interface TableActivity {
  table: MaintainedTable;
  live: number;
  dead: number;
  modifiedSinceAnalyze: number;
  insertedSinceVacuum: number;
  /** By us or by autovacuum, ever (as far as the statistics remember). */
  analyzed: boolean;
  vacuumed: boolean;
  /**
   * From the catalog, which survives what the statistics forget: PGlite starts every process with
   * empty counters, and a crash or a stats reset empties them on PostgreSQL. Current size in pages;
   * pages, rows (-1: never analyzed nor vacuumed) and all-visible pages as of the last VACUUM / ANALYZE.
   */
  pages: number;
  catalogPages: number;
  catalogRows: number;
  allVisiblePages: number;
}

/**
 * Eager ANALYZE: 5 % of the table changed (autovacuum waits for 10 %), or rows that were never
 * analyzed; and, when the counters remember no analyze (a new process on PGlite, a reset), a table
 * the catalog says was never analyzed, or that grew by a tenth since its statistics were taken.
 */
export const needsAnalyze = (t: TableActivity) =>
  t.modifiedSinceAnalyze > 50 + 0.05 * t.live ||
  (t.live > 0 && !t.analyzed) ||
  (!t.analyzed && t.pages > 0 && (t.catalogRows < 0 || t.pages > 1.1 * t.catalogPages + 8));

/**
 * VACUUM (PGlite, or a server without autovacuum): autovacuum's own thresholds for dead tuples and for inserts (the visibility map);
 * and, when the counters remember no vacuum, a table whose visibility map the catalog says is mostly unset.
 */
export const needsVacuum = (t: TableActivity) =>
  t.dead > 50 + 0.1 * t.live ||
  t.insertedSinceVacuum > 1000 + 0.2 * t.live ||
  (!t.vacuumed && t.pages > 8 && t.allVisiblePages < 0.5 * t.pages);

/** Any constant shared by every instance: the session advisory lock that makes one instance maintain at a time. */
export const MAINTENANCE_LOCK = 0x6d61696e; // "main"

type Executor = Kysely<DB>;

async function readActivity(conn: Executor): Promise<TableActivity[]> {
  const { rows } = await sql<{
    table: MaintainedTable;
    live: number;
    dead: number;
    modified: number;
    inserted: number;
    analyzed: boolean;
    vacuumed: boolean;
    pages: number;
    catalog_pages: number;
    catalog_rows: number;
    all_visible: number;
  }>`
    SELECT s.relname AS table, s.n_live_tup AS live, s.n_dead_tup AS dead, s.n_mod_since_analyze AS modified,
           s.n_ins_since_vacuum AS inserted, (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL) AS analyzed,
           (s.last_vacuum IS NOT NULL OR s.last_autovacuum IS NOT NULL) AS vacuumed,
           pg_relation_size(c.oid) / current_setting('block_size')::int AS pages, c.relpages AS catalog_pages,
           c.reltuples AS catalog_rows, c.relallvisible AS all_visible
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema() AND s.relname = ANY(${[...MAINTAINED_TABLES]}::text[])
     ORDER BY s.relname`.execute(conn);
  return rows.map((r) => ({
    table: r.table,
    live: Number(r.live),
    dead: Number(r.dead),
    modifiedSinceAnalyze: Number(r.modified),
    insertedSinceVacuum: Number(r.inserted),
    analyzed: r.analyzed,
    vacuumed: r.vacuumed,
    pages: Number(r.pages),
    catalogPages: Number(r.catalog_pages),
    catalogRows: Number(r.catalog_rows),
    allVisiblePages: Number(r.all_visible),
  }));
}

/**
 * What one pass would do, from the counters: VACUUM first (it also refreshes n_live_tup), then ANALYZE.
 * `vacuum`: whether this pass vacuums at all (no autovacuum does it).
 */
export function planMaintenance(activity: TableActivity[], vacuum: boolean): MaintenanceAction[] {
  return activity.flatMap((t) => [
    ...(vacuum && needsVacuum(t) ? [{ table: t.table, kind: 'vacuum' as const }] : []),
    ...(needsAnalyze(t) ? [{ table: t.table, kind: 'analyze' as const }] : []),
  ]);
}

/**
 * Whether a bulk write of `rows` calls for ANALYZE before it is answered: the table was never
 * analyzed, or what changed since its last ANALYZE, this write included, passes the eager threshold
 * of needsAnalyze. Without it every 1,000-row import request paid a full ANALYZE (a 30,000-row
 * sample) however large the table already was. The counters may not show this write yet (they are
 * published when a session goes idle), hence `rows` on top: counted twice at worst, so sooner.
 */
export async function bulkWriteNeedsAnalyze(conn: Executor, table: MaintainedTable, rows: number): Promise<boolean> {
  const { rows: found } = await sql<{ catalog_rows: number; modified: number }>`
    SELECT c.reltuples AS catalog_rows, coalesce(s.n_mod_since_analyze, 0) AS modified
      FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE c.oid = to_regclass(${table})`.execute(conn);
  const t = found[0];
  if (!t) throw new Error(`no table ${table}`);
  const catalogRows = Number(t.catalog_rows);
  return catalogRows < 0 || Number(t.modified) + rows > 50 + 0.05 * catalogRows;
}

/**
 * Whether the server's autovacuum looks after the tables: it needs both settings (the launcher does
 * not start without the statistics). A VACUUM cut short by statement_timeout keeps what it did (the
 * pages it marked all-visible are skipped by the next one), so a large table is done over passes.
 */
async function autovacuumRuns(conn: Executor): Promise<boolean> {
  const { rows } = await sql<{ on: boolean }>`
    SELECT current_setting('autovacuum')::boolean AND current_setting('track_counts')::boolean AS on`.execute(conn);
  return rows[0]?.on === true;
}

/** One statement; outside any transaction (VACUUM refuses to run in one), on the connection given. */
export function runMaintenance(conn: Executor, { table, kind }: MaintenanceAction) {
  return kind === 'vacuum' ? sql`VACUUM ${sql.table(table)}`.execute(conn) : sql`ANALYZE ${sql.table(table)}`.execute(conn);
}

export interface PassOptions {
  /**
   * Awaited before each VACUUM / ANALYZE; false abandons the rest of the pass (the instance stops).
   * On PGlite it waits for a moment when no request is queued for the database (jobs/maintenance.ts).
   */
  beforeStatement?: () => Promise<boolean>;
}

/**
 * One pass: reads the counters, runs what they call for, answers what it ran.
 *
 * - PostgreSQL: one dedicated connection holds a session advisory lock for the pass, so that of
 *   several instances only one maintains at a time (the others answer nothing); the lock goes with
 *   the connection if it dies. Every statement runs under the pool's statement_timeout.
 * - PGlite: every statement takes the one connection on its own, behind the requests already
 *   queued for it, so a pass holds requests up for one statement at a time (about 0.3 s for a
 *   100,000-row table), not for all of them in a row. PGlite is one session: the statistics this
 *   process flushes are the ones the next statement reads.
 */
export async function maintainOnce(db: Executor, backend: 'postgres' | 'pglite', options: PassOptions = {}): Promise<MaintenanceAction[]> {
  const runPlanned = async (conn: Executor, vacuum: boolean) => {
    const done: MaintenanceAction[] = [];
    for (const action of planMaintenance(await readActivity(conn), vacuum)) {
      if (options.beforeStatement && !(await options.beforeStatement())) break;
      await runMaintenance(conn, action);
      done.push(action);
    }
    return done;
  };
  if (backend === 'pglite') {
    // This process's own writes are published to pg_stat_user_tables at the end of this statement.
    await sql`SELECT pg_stat_force_next_flush()`.execute(db);
    return runPlanned(db, true);
  }
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${MAINTENANCE_LOCK}) AS locked`.execute(conn);
    if (!rows[0]?.locked) return [];
    try {
      return await runPlanned(conn, !(await autovacuumRuns(conn)));
    } finally {
      await sql`SELECT pg_advisory_unlock(${MAINTENANCE_LOCK})`.execute(conn);
    }
  });
}
