import { type Kysely, sql } from 'kysely';

// The version behind each record's ETag (src/http/conditional.ts). A BEFORE UPDATE trigger bumps
// it, so every path that changes a row (PATCH, transitions, uploads and removals, operator actions,
// the auto-archive job, a hand-written UPDATE) moves the ETag without having to remember to.
// The bump reads OLD under the row lock the UPDATE already holds, so concurrent writers serialize
// and each sees the version the previous one left: `WHERE row_version = $n` is then a
// compare-and-set. An UPDATE that rewrites the same values still bumps: cheaper and safer than
// comparing every column, and a spurious 412 only costs the client a re-read.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION bump_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.row_version := OLD.row_version + 1;
      RETURN NEW;
    END $$`.execute(db);
  for (const table of ['teardowns', 'listings']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN row_version bigint NOT NULL DEFAULT 1`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_row_version`)}
      BEFORE UPDATE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION bump_row_version()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['teardowns', 'listings']) {
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_row_version`)} ON ${sql.table(table)}`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN IF EXISTS row_version`.execute(db);
  }
  await sql`DROP FUNCTION IF EXISTS bump_row_version()`.execute(db);
}
