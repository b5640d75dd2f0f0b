import { type Kysely, sql } from 'kysely';

// Every instance caches authenticated principals (src/accounts/principal-cache.ts). These triggers
// tell all of them, through NOTIFY auth_changed, when anything a principal is made of changes:
// whoever commits it (an instance's admin API, the CLI, the revocation job, a hand-written UPDATE).
// Row-level with one constant payload per table: PostgreSQL delivers identical notifications of one
// transaction once, so a bulk revocation sends one, and a statement that changes no row sends none
// (the revocation job's periodic UPDATE). Only the columns that matter are watched: the per-minute
// `last_used_at` touch notifies nobody.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('auth_changed', TG_TABLE_NAME);
      RETURN NULL;
    END $$`.execute(db);
  const watched = {
    api_keys: 'revoked_at, rotated_at, expires_at, key_hash, prefix, user_id, org_id',
    users: 'status, capabilities, org_id, email',
    organizations: 'account_status, subscription_status, api_access_enabled',
  };
  for (const [table, columns] of Object.entries(watched)) {
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_auth_changed`)}
      AFTER UPDATE OF ${sql.raw(columns)} OR DELETE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION notify_auth_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['api_keys', 'users', 'organizations']) {
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_auth_changed`)} ON ${sql.table(table)}`.execute(db);
  }
  await sql`DROP FUNCTION IF EXISTS notify_auth_changed()`.execute(db);
}
