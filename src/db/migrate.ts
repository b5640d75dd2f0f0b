// Applies pending migrations. Kysely's Postgres adapter takes a transaction-scoped advisory lock
// around the run, so several instances starting at once apply each migration exactly once.
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Database } from './database.js';
import * as m0001 from './migrations/0001_init.js';
import * as m0002 from './migrations/0002_covering_sort_indexes.js';
import * as m0003 from './migrations/0003_moderation_and_file_deletions.js';
import * as m0004 from './migrations/0004_auth_change_notifications.js';
import * as m0005 from './migrations/0005_row_versions.js';
import * as m0006 from './migrations/0006_idempotency_keys.js';
import * as m0007 from './migrations/0007_events.js';
import * as m0008 from './migrations/0008_updated_at_indexes.js';
import * as m0009 from './migrations/0009_webhooks.js';
import * as m0010 from './migrations/0010_gin_fastupdate_off.js';
import * as m0011 from './migrations/0011_teardown_counts.js';

// Static imports rather than a folder scan: the compiled build and tsx see the same list.
const migrations: Record<string, Migration> = {
  '0001_init': m0001,
  '0002_covering_sort_indexes': m0002,
  '0003_moderation_and_file_deletions': m0003,
  '0004_auth_change_notifications': m0004,
  '0005_row_versions': m0005,
  '0006_idempotency_keys': m0006,
  '0007_events': m0007,
  '0008_updated_at_indexes': m0008,
  '0009_webhooks': m0009,
  '0010_gin_fastupdate_off': m0010,
  '0011_teardown_counts': m0011,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Database): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`${failed ? `Migration ${failed}` : 'Migrations'} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
