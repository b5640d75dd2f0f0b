import { type Kysely, sql } from 'kysely';

// `updated_since` and `sort_by=updated_at` on both list endpoints (issue 11): a partner's sync asks
// for what changed since its last one, oldest change first. The teardown index follows the covering
// sort indexes of 0002 (ids paged from the index alone, status carried for the default filter); the
// listing list reads active rows only, so its index leads with status like the created_at one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX teardowns_org_updated_at_idx ON teardowns (org_id, updated_at, id) INCLUDE (status)`.execute(db);
  await sql`CREATE INDEX listings_org_status_updated_idx ON listings (org_id, status, updated_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS teardowns_org_updated_at_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS listings_org_status_updated_idx`.execute(db);
}
