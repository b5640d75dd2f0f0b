// The database a process configures for itself (server or admin CLI): PostgreSQL at
// DATABASE_URL, or embedded PGlite under DATA_DIR behind a one-process lock; migrated, ready.
import { join } from 'node:path';
import type { Config } from '../config.js';
import { lockDataDir } from './data-dir-lock.js';
import { type DatabaseHandle, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

export async function openConfiguredDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize'>): Promise<DatabaseHandle> {
  const release = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase({ url: config.databaseUrl, pgliteDataDir: join(config.dataDir, 'pglite'), poolSize: config.dbPoolSize });
    await migrateToLatest(handle.db);
  } catch (err) {
    await handle?.close().catch(() => {});
    release();
    throw err;
  }
  const opened = handle;
  return {
    ...opened,
    close: async () => {
      try {
        await opened.close();
      } finally {
        release();
      }
    },
  };
}
