import { type Kysely, sql } from 'kysely';

// The whole initial model. Invariants that matter live here as constraints, not in JavaScript.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);

  await sql`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      account_status text NOT NULL DEFAULT 'active'
        CHECK (account_status IN ('active', 'inactive', 'churned')),
      subscription_status text NOT NULL DEFAULT 'active'
        CHECK (subscription_status IN ('active', 'trialing', 'past_due', 'canceled', 'expired',
                                       'rejected', 'pending_payment', 'pending_approval')),
      api_access_enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations (id),
      email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
      capabilities text[] NOT NULL DEFAULT '{}'
        CHECK (capabilities <@ ARRAY['seller', 'admin']::text[]),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX users_org_email_key ON users (org_id, lower(email))`.execute(db);

  await sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations (id),
      user_id uuid NOT NULL REFERENCES users (id),
      name text,
      key_hash bytea NOT NULL UNIQUE,
      prefix text NOT NULL,
      expires_at timestamptz,
      revoked_at timestamptz,
      revoked_reason text,
      rotated_at timestamptz,
      replaced_by uuid REFERENCES api_keys (id),
      last_used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX api_keys_user_idx ON api_keys (user_id) WHERE revoked_at IS NULL AND rotated_at IS NULL`.execute(db);

  await sql`
    CREATE TABLE vocabulary_terms (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kind text NOT NULL CHECK (kind IN ('aircraft_type', 'engine_model', 'apu_model', 'landing_gear_type')),
      name text NOT NULL CHECK (length(btrim(name)) > 0),
      manufacturer text NOT NULL,
      category text,
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX vocabulary_terms_kind_name_key ON vocabulary_terms (kind, lower(name))`.execute(db);

  await sql`
    CREATE TABLE teardowns (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations (id),
      created_by uuid NOT NULL REFERENCES users (id),
      asset_type text NOT NULL CHECK (asset_type IN ('aircraft', 'engine', 'apu', 'landing_gear')),
      aircraft_type_id uuid REFERENCES vocabulary_terms (id),
      engine_model_id uuid REFERENCES vocabulary_terms (id),
      apu_model_id uuid REFERENCES vocabulary_terms (id),
      landing_gear_type_id uuid REFERENCES vocabulary_terms (id),
      tail_number text,
      msn text,
      traceability text,
      incident_related text CHECK (incident_related IN ('Yes', 'No')),
      start_date date NOT NULL,
      end_date date,
      status text NOT NULL CHECK (status IN ('active_starting', 'active_in_process', 'active_completed',
                                             'draft', 'archived', 'suspended')),
      description text,
      location text NOT NULL,
      country text NOT NULL,
      audience text[],
      audience_set_at timestamptz,
      documents text[],
      images text[],
      harvest_list text,
      occm text,
      aircraft_details_doc text,
      non_incident_statement text,
      published_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (end_date IS NULL OR end_date >= start_date)
    )`.execute(db);
  // One index per sort column, each led by the organization and ended by id for stable pages.
  for (const column of ['created_at', 'msn', 'status', 'country', 'start_date', 'asset_type']) {
    await sql`CREATE INDEX ${sql.raw(`teardowns_org_${column}_idx`)} ON teardowns (org_id, ${sql.ref(column)}, id)`.execute(db);
  }
  for (const column of ['msn', 'tail_number', 'description', 'country']) {
    await sql`CREATE INDEX ${sql.raw(`teardowns_${column}_trgm_idx`)} ON teardowns USING gin (${sql.ref(column)} gin_trgm_ops)`.execute(db);
  }
  await sql`CREATE INDEX teardowns_expiry_idx ON teardowns (expires_at) WHERE status <> 'archived'`.execute(db);

  await sql`
    CREATE TABLE listings (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations (id),
      created_by uuid NOT NULL REFERENCES users (id),
      listing_type text NOT NULL CHECK (listing_type IN ('aircraft', 'engine', 'apu', 'parts', 'landing_gear')),
      aircraft_type_id uuid REFERENCES vocabulary_terms (id),
      engine_model_id uuid REFERENCES vocabulary_terms (id),
      apu_model_id uuid REFERENCES vocabulary_terms (id),
      landing_gear_type_id uuid REFERENCES vocabulary_terms (id),
      title text NOT NULL,
      description text,
      msn text,
      condition text,
      price_usd double precision CHECK (price_usd >= 0),
      country text,
      manufacturer text,
      part_number text,
      cycles_remaining double precision CHECK (cycles_remaining >= 0),
      status text NOT NULL CHECK (status IN ('active', 'under_offer', 'sold', 'leased', 'exchanged',
                                             'suspended', 'archived', 'draft', 'pending_review')),
      audience text[],
      audience_set_at timestamptz,
      documents text[],
      images text[],
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX listings_org_status_created_idx ON listings (org_id, status, created_at DESC, id DESC)`.execute(db);
  for (const column of ['title', 'description', 'msn', 'country', 'condition']) {
    await sql`CREATE INDEX ${sql.raw(`listings_${column}_trgm_idx`)} ON listings USING gin (${sql.ref(column)} gin_trgm_ops)`.execute(db);
  }

  await sql`
    CREATE TABLE audit_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid,
      action text NOT NULL,
      entity_type text NOT NULL,
      entity_id uuid,
      previous_state jsonb,
      new_state jsonb,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`.execute(db);
  await sql`CREATE INDEX audit_events_entity_idx ON audit_events (entity_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX audit_events_org_idx ON audit_events (org_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX audit_events_created_idx ON audit_events (created_at DESC)`.execute(db);

  await sql`
    CREATE TABLE security_alerts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kind text NOT NULL,
      org_id uuid,
      api_key_id uuid,
      details jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`.execute(db);
  await sql`CREATE INDEX security_alerts_org_idx ON security_alerts (org_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX security_alerts_created_idx ON security_alerts (created_at DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'security_alerts',
    'audit_events',
    'listings',
    'teardowns',
    'vocabulary_terms',
    'api_keys',
    'users',
    'organizations',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.ref(table)} CASCADE`.execute(db);
  }
}
