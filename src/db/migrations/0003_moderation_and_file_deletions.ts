import { type Kysely, sql } from 'kysely';

// Moderation hold (decisions.md section 9): an operator suspension is a fact of its own, not a
// status. A seller may set a listing to `suspended` itself (any of the nine statuses may follow any
// other), and a teardown archived while suspended is `archived` like any other: only the flag tells
// "an operator put this record on hold" apart, so it lives in the row, beside the status it pins.
// The CHECK makes the rule structural: a held record is suspended or archived, never anything a
// partner could see as live, whatever statement some later code writes.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['teardowns', 'listings']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN moderation_hold boolean NOT NULL DEFAULT false`.execute(db);
  }
  // Before this migration only an operator (admin action or import) could suspend a teardown, so
  // every suspended teardown is held, and so is an archived one whose last archive came from suspended.
  await sql`
    UPDATE teardowns t SET moderation_hold = true
    WHERE t.status = 'suspended'
       OR (t.status = 'archived' AND (
             SELECT a.previous_state->>'status' FROM audit_events a
             WHERE a.entity_id = t.id AND a.action IN ('teardown.archive', 'teardown.archived')
             ORDER BY a.created_at DESC LIMIT 1) = 'suspended')`.execute(db);
  // A suspended listing may be the seller's own choice; the audit trail cannot say which, so only
  // imported suspended listings (an operator's) are held.
  await sql`
    UPDATE listings l SET moderation_hold = true
    WHERE l.status = 'suspended' AND NOT EXISTS (
      SELECT 1 FROM audit_events a WHERE a.entity_id = l.id AND a.action <> 'listing.imported')`.execute(db);
  for (const table of ['teardowns', 'listings']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.raw(`${table}_moderation_hold_check`)}
      CHECK (NOT moderation_hold OR status IN ('suspended', 'archived'))`.execute(db);
  }
  await createFileDeletions(db);
}

// Storage hygiene: a transactional outbox of objects to delete. A row is written in the same
// transaction as the change that drops a file (or, for an upload, before its bytes are streamed,
// due only after a grace), so no object can be orphaned by a crash, a storage outage or a failed
// write between the database and the store. The sweep job claims due rows with SKIP LOCKED.
async function createFileDeletions(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE file_deletions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      owner_kind text NOT NULL CHECK (owner_kind IN ('teardowns', 'listings')),
      record_id uuid NOT NULL,
      object_key text NOT NULL,
      url text NOT NULL,
      not_before timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      -- The ownership guard (decisions.md section 4), restated where it cannot be bypassed.
      CHECK (starts_with(object_key, owner_kind || '/' || record_id::text || '/'))
    )`.execute(db);
  await sql`CREATE INDEX file_deletions_due_idx ON file_deletions (not_before)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS file_deletions`.execute(db);
  for (const table of ['teardowns', 'listings']) {
    await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN IF EXISTS moderation_hold`.execute(db);
  }
}
