// The floors' database access: the service's own pool settings (src/db/database.ts: the same client
// class, type parsers, deadlines and pool size), without Kysely on the request path. The Kysely
// instance only compiles the repositories' statements. PostgreSQL: the bench database itself;
// PGlite: an identical copy of the service's data directory (PGlite allows one process per directory).
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { DEFAULT_DEADLINES, pglitePoolConfig, postgresPoolConfig } from '../../src/db/database.js';
import { pgliteStartParams } from '../../src/db/pglite-settings.js';
import type { DB } from '../../src/db/schema.js';

export interface FloorDatabase {
  pool: pg.Pool;
  /** Compiles only: requests go through `pool` directly. */
  db: Kysely<DB>;
  close(): Promise<void>;
}

export async function openFloorDatabase(env: NodeJS.ProcessEnv = process.env): Promise<FloorDatabase> {
  let pool: pg.Pool;
  let closeDatabase = async () => {};
  if (env.FLOOR_DATABASE_URL) {
    pool = new pg.Pool(postgresPoolConfig(env.FLOOR_DATABASE_URL, Number(env.FLOOR_POOL_SIZE ?? 10), DEFAULT_DEADLINES));
  } else {
    if (!env.FLOOR_PGLITE_DIR) throw new Error('FLOOR_DATABASE_URL or FLOOR_PGLITE_DIR is required');
    const pglite = await PGlite.create(env.FLOOR_PGLITE_DIR, { extensions: { pg_trgm }, startParams: pgliteStartParams() });
    pool = new pg.Pool(pglitePoolConfig(pglite));
    closeDatabase = () => pglite.close();
  }
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    pool,
    db,
    close: async () => {
      await pool.end();
      await closeDatabase();
    },
  };
}
