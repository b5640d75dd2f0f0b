// One Kysely dialect (PostgresDialect on node-postgres) for both backends: a real PostgreSQL
// pool when DATABASE_URL is set, otherwise embedded PGlite behind PGlite's node-postgres adapter.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { type CompiledQuery, Kysely, type LogConfig, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { initPgliteDataDir } from './pglite-initdb.js';
import { pgliteStartParams } from './pglite-settings.js';
import { pgliteYieldingBetweenStatements } from './pglite-turns.js';
import { type RowShapes, rowShapesSupported, ShapedQuery } from './row-shapes.js';
import type { DB } from './schema.js';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'postgres' | 'pglite';
  /** PostgreSQL only: where to open connections of one's own (the auth change listener). */
  url?: string;
  deadlines?: DatabaseDeadlines;
  /** Called after every completed query (how the service notices a database that came back). */
  queryObservers: Set<() => void>;
  /** Told when an idle pooled connection dies (the pool replaces it by itself). */
  idleErrorObservers: Set<(err: Error) => void>;
  /** PGlite only: requests queued for its one connection (table maintenance waits for none). */
  waiting?: () => number;
  close(): Promise<void>;
}

const DATE_OID = 1082;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

// Dates stay 'YYYY-MM-DD' strings (a JS Date would shift them by the time zone); counts fit in a double.
const typeOverrides = new pg.TypeOverrides();
typeOverrides.setTypeParser(DATE_OID, (v: string) => v);
typeOverrides.setTypeParser(INT8_OID, (v: string) => Number(v));
typeOverrides.setTypeParser(NUMERIC_OID, (v: string) => Number(v));

/**
 * Parameterised statements run as named prepared statements: PostgreSQL parses each distinct text
 * once per connection and, after five executions, may keep a generic plan instead of planning every
 * request. Measured against the same compiled statements sent unnamed through the same pool, A/B
 * alternated (bench/RESULTS.md, "Prepared statements"; earlier runs in bench/HISTORY.md): 1.33–1.77× the
 * requests per second on get by id, 1.20–1.23× on list page 1.
 *
 * What keeps it safe:
 * - Bounded: at most MAX_PREPARED distinct texts get a name per process (so per connection); later
 *   ones run unnamed. Kysely emits a fixed set of texts per code path, a few hundred in all.
 * - Never a generic plan for a pattern: a text with ILIKE runs unnamed, so every search is planned
 *   for its own pattern (a selective term uses the trigram indexes, a broad one need not).
 * - Never stale after a migration: a statement prepared before a schema change that alters its result
 *   (`SELECT *` of a table that gained a column) fails with "cached plan must not change result type".
 *   The connection then moves to a new generation of names, so every statement is prepared afresh,
 *   and the failed statement is retried once when it ran outside a transaction (inside one, the
 *   transaction is already aborted: the request fails once, the next one is prepared anew).
 * - Poolers: PgBouncer 1.21+ in transaction mode supports named statements (max_prepared_statements);
 *   an older pooler needs DB_PREPARED_STATEMENTS=false, which sends everything unnamed.
 * - Statements without parameters (DDL, BEGIN, COMMIT) are never prepared.
 */
export const MAX_PREPARED = 200;
const statementNames = new Map<string, number>();

function statementNumber(text: string): number | undefined {
  let n = statementNames.get(text);
  if (n === undefined && statementNames.size < MAX_PREPARED && !/\bilike\b/i.test(text)) {
    n = statementNames.size + 1;
    statementNames.set(text, n);
  }
  return n;
}

const isStalePlan = (err: unknown) =>
  err instanceof Error && (err as { code?: string }).code === '0A000' && err.message.includes('cached plan must not change result type');

/**
 * The connection class of the PostgreSQL pool.
 *
 * - It always listens for `error`: pg emits it on a client whose socket dies, and a client checked
 *   out of the pool has no other listener, so without this one a dropped connection (a failover,
 *   `pg_terminate_backend`, a pooler restart) would end the process. The failed query reports the
 *   error itself, and the pool discards the client when it comes back (it is no longer queryable).
 * - A query that outlives the client-side deadline (`query_timeout`: the server did not answer, e.g.
 *   packets dropped) leaves the connection waiting for an answer that may never come; the socket is
 *   destroyed so that the pool replaces the connection instead of handing it out again.
 * - Parameterised statements run as named prepared statements (see MAX_PREPARED above), and their
 *   answers reuse the statement's row template (db/row-shapes.ts). PGlite's pool uses this class
 *   too, with every statement unnamed.
 */
class ServiceClient extends pg.Client {
  private readonly prepare: boolean;
  /** Bumped when a prepared statement went stale: names of an older generation are never used again. */
  private generation = 0;
  private inTransaction = false;
  /**
   * The row templates of this connection's statements (db/row-shapes.ts), built with its type parsers:
   * those of the pool's config, never changed on a connection by this service.
   */
  private readonly rowShapes: RowShapes = new Map();

  // biome-ignore lint/suspicious/noExplicitAny: forwards pg.Client's constructor config untouched
  constructor(config?: any) {
    super(config);
    this.prepare = config?.preparedStatements !== false;
    this.on('error', () => {});
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query() is heavily overloaded; this forwards every form
  override query(config: any, values?: any, callback?: any): any {
    const parameterised = typeof config === 'string' && Array.isArray(values) && values.length > 0;
    // Transaction control has no parameters: the statements that carry them are not looked at.
    if (typeof config === 'string' && !parameterised) {
      if (/^\s*(begin|start transaction)\b/i.test(config)) this.inTransaction = true;
      else if (/^\s*(commit|rollback|end)\b/i.test(config)) this.inTransaction = false;
    }
    if (!parameterised || callback !== undefined) return this.withDeadline(super.query(config, values, callback));
    const n = this.prepare ? statementNumber(config) : undefined;
    const run = () => this.submit(n === undefined ? { text: config, values } : { name: `s${n}g${this.generation}`, text: config, values });
    const outside = !this.inTransaction;
    // One handler for both failures (a promise per layer is measurable on the hottest reads).
    return run().catch((err: unknown) => {
      if (n !== undefined && isStalePlan(err)) {
        this.generation++;
        if (outside) return run().catch((again: unknown) => this.failed(again));
      }
      return this.failed(err);
    });
  }

  /** Sends a statement whose answer reuses its row template (db/row-shapes.ts). */
  private submit(config: { text: string; values: unknown[]; name?: string }): Promise<pg.QueryResult> {
    if (!rowShapesSupported) return super.query(config);
    const query = new ShapedQuery(config, this.rowShapes);
    const answer = new Promise<pg.QueryResult>((resolve, reject) => {
      (query as unknown as { callback: (err: Error | undefined, result: pg.QueryResult) => void }).callback = (err, result) =>
        err ? reject(err) : resolve(result);
    });
    super.query(query);
    return answer;
  }

  private withDeadline(result: unknown): unknown {
    if (!(result instanceof Promise)) return result;
    return result.catch((err: unknown) => this.failed(err));
  }

  /** Rethrows a query's error; one that outlived the read deadline first destroys the connection. */
  private failed(err: unknown): never {
    if (err instanceof Error && err.message === 'Query read timeout') {
      (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
    throw err;
  }
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; absent means embedded PGlite. */
  url?: string;
  /** PGlite data directory; 'memory://' keeps everything in memory. */
  pgliteDataDir?: string;
  /** PGlite's shared_buffers in MB (src/db/pglite-settings.ts). */
  pgliteSharedBuffersMb?: number;
  poolSize?: number;
  /** PostgreSQL: named prepared statements (default true). */
  preparedStatements?: boolean;
  /** Deadlines of the PostgreSQL connections (unused by PGlite, which runs in process). */
  deadlines?: DatabaseDeadlines;
}

export interface DatabaseDeadlines {
  /** Opening a connection and waiting for a free pooled one. */
  connectTimeoutMs: number;
  /** Server-side statement_timeout (0 disables it: migrations); the client waits one second more. */
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_DEADLINES: DatabaseDeadlines = {
  connectTimeoutMs: 2000,
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 10_000,
};

/** The pg settings that bound every wait on PostgreSQL (docs/operations.md, "Deadlines"). */
export function connectionSettings(deadlines: DatabaseDeadlines) {
  const { connectTimeoutMs, statementTimeoutMs, idleInTransactionTimeoutMs } = deadlines;
  return {
    connectionTimeoutMillis: connectTimeoutMs,
    // The server cancels a slow statement cleanly (SQLSTATE 57014: a 503 for that request, the connection stays usable); the
    // client-side deadline only fires when the server itself is unreachable.
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 1000 } : {}),
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    // Detects a peer that vanished without a reset (a dead host, a dropped route) on idle connections.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/** The service's PostgreSQL pool settings (the bench floors open theirs with the same). */
export function postgresPoolConfig(url: string, poolSize: number, deadlines: DatabaseDeadlines, preparedStatements = true): pg.PoolConfig {
  return {
    Client: ServiceClient,
    // Read by ServiceClient (pg hands the pool's options to each client it creates).
    ...({ preparedStatements } as object),
    connectionString: url,
    max: poolSize,
    types: typeOverrides,
    application_name: 'partner-api',
    ...connectionSettings(deadlines),
  };
}

/** The node-postgres pool over an open PGlite: one connection, as PGlite is one session. */
export function pglitePoolConfig(pglite: PGlite): pg.PoolConfig {
  // The service's client class, unnamed statements: one session, whose answers reuse row templates too.
  // Each statement starts on a later turn of the event loop (db/pglite-turns.ts).
  return {
    ...createPgConfig(pgliteYieldingBetweenStatements(pglite)),
    Client: ServiceClient,
    ...({ preparedStatements: false } as object),
    max: 1,
    types: typeOverrides,
  };
}

/** The pool and query observers behind each Kysely instance openDatabase made (see selectCompiled). */
const directReads = new WeakMap<Database, { pool: pg.Pool; observers: Set<() => void> }>();

function opened(db: Database, pool: pg.Pool, observers: Set<() => void>): Database {
  directReads.set(db, { pool, observers });
  return db;
}

/**
 * The rows of a compiled SELECT, sent on a pooled connection as Kysely would send it (same client
 * class, same text and values, so the same prepared statement and deadlines) but without Kysely's
 * execution layers, which cost the hottest reads about 7 µs of CPU each (profiled, get by id).
 * `db` a transaction (or a Kysely instance openDatabase did not make): through Kysely, on its connection.
 */
export async function selectCompiled<R>(db: Database, query: CompiledQuery<R>): Promise<R[]> {
  const direct = directReads.get(db);
  if (!direct) return (await db.executeQuery(query)).rows;
  const client = await direct.pool.connect();
  try {
    const { rows } = await client.query(query.sql, query.parameters as unknown[]);
    for (const observe of direct.observers) observe();
    return rows as R[];
  } finally {
    client.release();
  }
}

function queryObserver(observers: Set<() => void>): LogConfig {
  return (event) => {
    if (event.level === 'query') for (const observe of observers) observe();
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const deadlines = options.deadlines ?? DEFAULT_DEADLINES;
    const pool = new pg.Pool(postgresPoolConfig(options.url, options.poolSize ?? 10, deadlines, options.preparedStatements ?? true));
    // An idle client lost its connection; the pool replaces it. Queries in flight report their own error.
    const idleErrorObservers = new Set<(err: Error) => void>();
    pool.on('error', (err) => {
      for (const observe of idleErrorObservers) observe(err);
    });
    const queryObservers = new Set<() => void>();
    const db = opened(new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryObserver(queryObservers) }), pool, queryObservers);
    return { db, kind: 'postgres', url: options.url, deadlines, queryObservers, idleErrorObservers, close: () => db.destroy() };
  }

  const dataDir = options.pgliteDataDir ?? 'memory://';
  const startParams = pgliteStartParams(options.pgliteSharedBuffersMb);
  if (!dataDir.startsWith('memory://')) {
    mkdirSync(dataDir, { recursive: true });
    await initPgliteDataDir(dataDir, startParams);
  }
  const pglite = await PGlite.create(dataDir, { extensions: { pg_trgm }, startParams });
  // PGlite is a single connection: a pool of one serialises transactions, as a real session would.
  const pool = new pg.Pool(pglitePoolConfig(pglite));
  const queryObservers = new Set<() => void>();
  const db = opened(new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryObserver(queryObservers) }), pool, queryObservers);
  return {
    db,
    kind: 'pglite',
    queryObservers,
    waiting: () => pool.waitingCount,
    idleErrorObservers: new Set(),
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}

/** One round trip to the database (readiness). */
export async function pingDatabase(db: Database): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
