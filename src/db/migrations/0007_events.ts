import { type Kysely, sql } from 'kysely';

// The event log (issue 11): one row per committed change of a teardown or listing, written in the
// transaction of the change. Events are numbered per organization by `event_streams.last_seq`, a
// counter row the writing transaction updates as its last statement: the row lock is held until
// commit, so a later number can only be taken once the earlier one committed (or rolled back, and
// the counter with it). Numbers therefore follow commit order with no gaps, and a reader that asks
// for `seq > cursor` can never skip an event that commits later. `purged_through` is the highest
// number the retention purge removed: a cursor below it has lost events (410 cursor_expired).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE event_streams (
      org_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
      purged_through bigint NOT NULL DEFAULT 0 CHECK (purged_through >= 0 AND purged_through <= last_seq)
    )`.execute(db);
  await sql`
    CREATE TABLE events (
      org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      seq bigint NOT NULL CHECK (seq > 0),
      id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
      type text NOT NULL,
      entity_type text NOT NULL CHECK (entity_type IN ('teardown', 'listing', 'webhook')),
      entity_id uuid NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (org_id, seq)
    )`.execute(db);
  // The retention purge deletes by age.
  await sql`CREATE INDEX events_created_at_idx ON events (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS events`.execute(db);
  await sql`DROP TABLE IF EXISTS event_streams`.execute(db);
}
