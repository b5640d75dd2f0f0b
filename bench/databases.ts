// The bench's own databases: a fresh PostgreSQL database per run (dropped at the end, whatever happens)
// and the PGlite data directory layout the service expects under DATA_DIR.
import { join } from 'node:path';
import pg from 'pg';

export interface BenchPostgres {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'partner-api-bench' });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export async function createPostgresDatabase(adminUrl: string): Promise<BenchPostgres> {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:T.Z]/g, '')
    .slice(0, 14);
  const name = `bench_${stamp}_${process.pid}`;
  await admin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      // FORCE ends sessions a killed child may have left behind (PostgreSQL 13+).
      await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export async function postgresVersion(adminUrl: string): Promise<string> {
  return admin(adminUrl, async (c) => (await c.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version);
}

/** Where the service keeps its embedded database inside DATA_DIR (src/app.ts). */
export const pgliteDirOf = (dataDir: string) => join(dataDir, 'pglite');
