import { type Kysely, sql } from 'kysely';

// Webhook endpoints and the log of their delivery attempts (issue 11, src/webhooks).
//
// - At most 20 endpoints per organization, enforced by the table itself: every endpoint takes one of
//   the organization's 20 `slot`s (CHECK 1..20, UNIQUE per organization), so two concurrent creates
//   can never make 21, whoever inserts (webhooks/service.ts picks the lowest free slot and retries
//   when a racing create took it).
// - Each endpoint has its own cursor into the organization's event log: `last_delivered_seq`, the
//   number (events.seq) of the last event it received or skipped. Delivery is in order; while the
//   head event is retried (`attempt` failures so far, next try at `next_attempt_at`), later events wait.
// - `lease_until` / `lease_token`: the instance delivering to the endpoint right now. A claim commits
//   at once (no transaction is held across the HTTP call); results are written only by the lease's
//   holder, and the lease of an instance that died simply runs out.
// - Secrets are stored as they are given to the partner: signing needs the key itself. They never
//   leave the service except in the create and rotate answers.
// - `notify_events_appended`: a commit that adds events for an organization with an enabled endpoint
//   NOTIFYs `events_appended`, so that listening instances deliver at once instead of at their next
//   poll. Statement-level, so one multi-row insert notifies once, and only when someone listens for
//   that organization (NOTIFY takes a cluster-wide lock at commit: writes of organizations without
//   endpoints do not pay for it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      slot smallint NOT NULL CHECK (slot BETWEEN 1 AND 20),
      url text NOT NULL CHECK (length(url) <= 2048),
      description text CHECK (length(description) <= 500),
      event_types text[],
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      disabled_at timestamptz,
      last_delivered_seq bigint NOT NULL CHECK (last_delivered_seq >= 0),
      attempt integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      failing_since timestamptz,
      lease_until timestamptz,
      lease_token uuid,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (org_id, slot)
    )`.execute(db);
  // The workers' claim: enabled endpoints by due time.
  await sql`CREATE INDEX webhook_endpoints_due_idx ON webhook_endpoints (next_attempt_at) WHERE enabled`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (org_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      position bigint GENERATED ALWAYS AS IDENTITY,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      org_id uuid NOT NULL,
      event_id uuid NOT NULL,
      event_seq bigint,
      event_type text NOT NULL,
      attempt integer NOT NULL,
      status_code integer,
      error text,
      duration_ms integer NOT NULL,
      next_retry_at timestamptz,
      created_at timestamptz NOT NULL
    )`.execute(db);
  // The log reads newest first in the order attempts were written (timestamps of one millisecond tie).
  await sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, position DESC)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`.execute(db);

  await sql`
    CREATE OR REPLACE FUNCTION notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM appended a JOIN webhook_endpoints w ON w.org_id = a.org_id AND w.enabled) THEN
        PERFORM pg_notify('events_appended', '');
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER events_appended AFTER INSERT ON events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events_appended()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS events_appended ON events`.execute(db);
  await sql`DROP FUNCTION IF EXISTS notify_events_appended()`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_deliveries`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_endpoints`.execute(db);
}
