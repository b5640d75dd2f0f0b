import { type Kysely, sql } from 'kysely';

// The exact `total` of the teardown list without counting rows. Unfiltered (and status-filtered)
// lists are what partners page through most, and their count(*) walked every row of the
// organization: 96 ms at 100,000 rows of one organization, growing with it, while the page itself
// took 0.2 ms (bench/SCALE.md). One counter row per (organization, status), kept by statement-level
// triggers in the writing transaction itself, so a count read in any snapshot is that snapshot's.
//
// - Each trigger applies the net change of its statement grouped by (org_id, status), in key
//   order: two transactions lock counter rows in the same order, so they cannot deadlock on them.
// - Every UPDATE fires it (PostgreSQL refuses transition tables on an UPDATE OF <columns> trigger),
//   but a statement that moves no row between statuses, a PATCH, nets to nothing (HAVING sum <> 0)
//   and writes and locks nothing.
// - Writers of one organization and status queue on its counter row until they commit, as they
//   already queue on the event stream's row (0007).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE teardown_counts (
      org_id uuid NOT NULL,
      status text NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (org_id, status)
    )`.execute(db);
  await sql`
    CREATE FUNCTION teardown_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO teardown_counts AS c (org_id, status, n)
          SELECT org_id, status, count(*) FROM new_rows GROUP BY org_id, status ORDER BY org_id, status
        ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + excluded.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO teardown_counts AS c (org_id, status, n)
          SELECT org_id, status, -count(*) FROM old_rows GROUP BY org_id, status ORDER BY org_id, status
        ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + excluded.n;
      ELSE
        INSERT INTO teardown_counts AS c (org_id, status, n)
          SELECT org_id, status, sum(delta) FROM (
            SELECT org_id, status, 1 AS delta FROM new_rows
            UNION ALL
            SELECT org_id, status, -1 FROM old_rows
          ) moved
          GROUP BY org_id, status HAVING sum(delta) <> 0 ORDER BY org_id, status
        ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + excluded.n;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER teardown_counts_insert AFTER INSERT ON teardowns
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION teardown_counts_apply()`.execute(db);
  await sql`
    CREATE TRIGGER teardown_counts_update AFTER UPDATE ON teardowns
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION teardown_counts_apply()`.execute(db);
  await sql`
    CREATE TRIGGER teardown_counts_delete AFTER DELETE ON teardowns
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION teardown_counts_apply()`.execute(db);
  // TRUNCATE has no transition table: it empties the counters with the table.
  await sql`
    CREATE FUNCTION teardown_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM teardown_counts;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER teardown_counts_truncate AFTER TRUNCATE ON teardowns
    FOR EACH STATEMENT EXECUTE FUNCTION teardown_counts_truncate()`.execute(db);
  // The rows already there, counted once, under a lock that keeps writers out until the triggers exist.
  await sql`LOCK TABLE teardowns IN SHARE MODE`.execute(db);
  await sql`INSERT INTO teardown_counts (org_id, status, n) SELECT org_id, status, count(*) FROM teardowns GROUP BY org_id, status`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS teardown_counts_insert ON teardowns`.execute(db);
  await sql`DROP TRIGGER IF EXISTS teardown_counts_update ON teardowns`.execute(db);
  await sql`DROP TRIGGER IF EXISTS teardown_counts_delete ON teardowns`.execute(db);
  await sql`DROP TRIGGER IF EXISTS teardown_counts_truncate ON teardowns`.execute(db);
  await sql`DROP FUNCTION IF EXISTS teardown_counts_apply()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS teardown_counts_truncate()`.execute(db);
  await sql`DROP TABLE IF EXISTS teardown_counts`.execute(db);
}
