// One Kysely dialect (PostgresDialect on node-postgres) for both backends: a real PostgreSQL
// pool when DATABASE_URL is set, otherwise embedded PGlite behind PGlite's node-postgres adapter.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, type LogConfig, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { initPgliteDataDir } from './pglite-initdb.js';
import { pgliteStartParams } from './pglite-settings.js';
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
 * Parameterised queries become named prepared statements: PostgreSQL parses and plans each distinct
 * statement once per connection instead of on every request. Kysely emits a bounded set of texts (the
 * dynamic filters combine into a few hundred at most); past MAX_PREPARED distinct texts, new ones run
 * unnamed. Statements without parameters (DDL, BEGIN, COMMIT) are never prepared, so migrations
 * cannot leave a plan behind that a later schema change would invalidate.
 */
const MAX_PREPARED = 2_000;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_PREPARED) {
    name = `s${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

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
 * - Parameterised queries run as named prepared statements (see statementName).
 */
class ServiceClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: forwards pg.Client's constructor config untouched
  constructor(config?: any) {
    super(config);
    this.on('error', () => {});
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query() is heavily overloaded; this forwards every form
  override query(config: any, values?: any, callback?: any): any {
    const prepared =
      typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined
        ? statementName(config)
        : undefined;
    const result = prepared ? super.query({ name: prepared, text: config, values }) : super.query(config, values, callback);
    if (!(result instanceof Promise)) return result;
    return result.catch((err: unknown) => {
      if (err instanceof Error && err.message === 'Query read timeout') {
        (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }
      throw err;
    });
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

function queryObserver(observers: Set<() => void>): LogConfig {
  return (event) => {
    if (event.level === 'query') for (const observe of observers) observe();
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const deadlines = options.deadlines ?? DEFAULT_DEADLINES;
    const pool = new pg.Pool({
      Client: ServiceClient,
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: typeOverrides,
      application_name: 'partner-api',
      ...connectionSettings(deadlines),
    });
    // An idle client lost its connection; the pool replaces it. Queries in flight report their own error.
    const idleErrorObservers = new Set<(err: Error) => void>();
    pool.on('error', (err) => {
      for (const observe of idleErrorObservers) observe(err);
    });
    const queryObservers = new Set<() => void>();
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryObserver(queryObservers) });
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
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, types: typeOverrides });
  const queryObservers = new Set<() => void>();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryObserver(queryObservers) });
  return {
    db,
    kind: 'pglite',
    queryObservers,
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
