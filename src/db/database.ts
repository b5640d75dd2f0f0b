// One Kysely dialect (PostgresDialect on node-postgres) for both backends: a real PostgreSQL
// pool when DATABASE_URL is set, otherwise embedded PGlite behind PGlite's node-postgres adapter.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'postgres' | 'pglite';
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

class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query() is heavily overloaded; this forwards every form
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
      const name = statementName(config);
      if (name) return super.query({ name, text: config, values });
    }
    return super.query(config, values, callback);
  }
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; absent means embedded PGlite. */
  url?: string;
  /** PGlite data directory; 'memory://' keeps everything in memory. */
  pgliteDataDir?: string;
  poolSize?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const pool = new pg.Pool({
      Client: PreparingClient,
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: typeOverrides,
      application_name: 'partner-api',
    });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it. Queries in flight report their own error.
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }

  const dataDir = options.pgliteDataDir ?? 'memory://';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir, { extensions: { pg_trgm } });
  // PGlite is a single connection: a pool of one serialises transactions, as a real session would.
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, types: typeOverrides });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}

