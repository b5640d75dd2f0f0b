// The floors' database access: node-postgres straight, no Kysely, no service code. PostgreSQL through a
// pool the size of the service's (DB_POOL_SIZE default 10); PGlite through the same node-postgres
// adapter the service uses, on a copy of the seeded data directory (PGlite allows one process per directory).
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';

// The same result parsing as the service, so both sides build the same JavaScript values.
const types = new pg.TypeOverrides();
types.setTypeParser(1082, (v: string) => v);
types.setTypeParser(20, (v: string) => Number(v));
types.setTypeParser(1700, (v: string) => Number(v));

export async function openFloorPool(env: NodeJS.ProcessEnv = process.env): Promise<{ pool: pg.Pool; close(): Promise<void> }> {
  if (env.FLOOR_DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL_SIZE ?? 10), types });
    return { pool, close: () => pool.end() };
  }
  if (!env.FLOOR_PGLITE_DIR) throw new Error('FLOOR_DATABASE_URL or FLOOR_PGLITE_DIR is required');
  const pglite = await PGlite.create(env.FLOOR_PGLITE_DIR, { extensions: { pg_trgm } });
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, types });
  return {
    pool,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
}
