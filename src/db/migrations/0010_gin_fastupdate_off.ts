import { type Kysely, sql } from 'kysely';

// The trigram indexes of the searches (0001) stop buffering inserts. With fastupdate on (the default),
// a GIN index appends new entries to a pending list that every search then scans in full, unsorted,
// until a VACUUM (or the list outgrowing gin_pending_list_limit) merges it: right after a bulk import
// a search read the whole list, 5x slower than after the merge (docs/operations.md, "Table
// maintenance"). With it off, an insert updates the index in place: the writer pays a little, the
// reader never. What the lists already hold is merged here, so existing databases gain at once.
export const TRIGRAM_INDEXES = [
  ...['msn', 'tail_number', 'description', 'country'].map((column) => `teardowns_${column}_trgm_idx`),
  ...['title', 'description', 'msn', 'country', 'condition'].map((column) => `listings_${column}_trgm_idx`),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of TRIGRAM_INDEXES) {
    await sql`ALTER INDEX ${sql.raw(index)} SET (fastupdate = off)`.execute(db);
    await sql`SELECT gin_clean_pending_list(${index}::regclass)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of TRIGRAM_INDEXES) await sql`ALTER INDEX ${sql.raw(index)} RESET (fastupdate)`.execute(db);
}
