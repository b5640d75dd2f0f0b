import { type Kysely, sql } from 'kysely';

// Idempotency-Key (decisions.md section 1, issue 10). One row per (organization, minting user, key):
// the user, not the API key, so that a rotated key's retries still replay, and another user of the
// same organization never sees this user's responses.
//
// A row is `running` while its first request runs (held by `lease_token` until `lease_expires_at`),
// `committed` once that request's write transaction committed (the flip happens inside that
// transaction, so "effects committed" and "key claimed" are one fact), and `done` once the response
// is stored. The CHECKs keep the states honest whatever statement writes them: only a `done` row has
// a response, and a row that outlived `running` has its fingerprint (an upload's is known only once
// its bytes have streamed through, so a `running` upload row may not have it yet).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE idempotency_keys (
      org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
      fingerprint text,
      state text NOT NULL CHECK (state IN ('running', 'committed', 'done')),
      lease_token uuid NOT NULL,
      lease_expires_at timestamptz NOT NULL,
      response_status integer,
      response_headers jsonb,
      response_body text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (org_id, user_id, key),
      CONSTRAINT idempotency_keys_response_check
        CHECK ((state = 'done') = (response_status IS NOT NULL AND response_headers IS NOT NULL AND response_body IS NOT NULL)),
      CONSTRAINT idempotency_keys_fingerprint_check CHECK (state = 'running' OR fingerprint IS NOT NULL)
    )`.execute(db);
  // The purge job deletes by age.
  await sql`CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS idempotency_keys`.execute(db);
}
