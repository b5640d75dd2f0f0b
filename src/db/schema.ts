// Row types of every table, as Kysely sees them. Column names are the database's (snake_case).
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AuditAction, AuditEntityType } from '../audit/actions.js';
import type { AccountStatus, Capability, SubscriptionStatus, UserStatus } from '../domain/accounts.js';
import type { ListingStatus, StoredListingType } from '../domain/listings.js';
import type { AudienceValue, OwnerKind, VocabularyKind } from '../domain/records.js';
import type { IncidentRelated, StoredAssetType, TeardownStatus } from '../domain/teardowns.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json = ColumnType<unknown, string | undefined, string>;
/** A jsonb column that may be SQL NULL (an audit row's previous / new state). */
type NullableJson = ColumnType<unknown, string | null | undefined, string | null>;

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  account_status: Generated<AccountStatus>;
  subscription_status: Generated<SubscriptionStatus>;
  api_access_enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: Generated<string>;
  org_id: string;
  email: string;
  capabilities: Generated<Capability[]>;
  status: Generated<UserStatus>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<string>;
  org_id: string;
  user_id: string;
  name: string | null;
  key_hash: Buffer;
  prefix: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  rotated_at: Date | null;
  replaced_by: string | null;
  last_used_at: Date | null;
  created_at: CreatedAt;
}

export interface VocabularyTermsTable {
  id: Generated<string>;
  kind: VocabularyKind;
  name: string;
  manufacturer: string;
  category: string | null;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
}

export interface TeardownsTable {
  id: Generated<string>;
  org_id: string;
  created_by: string;
  asset_type: StoredAssetType;
  aircraft_type_id: string | null;
  engine_model_id: string | null;
  apu_model_id: string | null;
  landing_gear_type_id: string | null;
  tail_number: string | null;
  msn: string | null;
  traceability: string | null;
  incident_related: IncidentRelated | null;
  start_date: string;
  end_date: string | null;
  status: TeardownStatus;
  description: string | null;
  location: string;
  country: string;
  audience: AudienceValue[] | null;
  audience_set_at: Date | null;
  documents: string[] | null;
  images: string[] | null;
  harvest_list: string | null;
  occm: string | null;
  aircraft_details_doc: string | null;
  non_incident_statement: string | null;
  /** Operator suspension: a seller's own actions cannot bring the record back to an active status. */
  moderation_hold: Generated<boolean>;
  /** Bumped by a BEFORE UPDATE trigger on every change (migration 0005); the ETag's source. */
  row_version: ColumnType<number, never, never>;
  published_at: Timestamp;
  expires_at: Timestamp;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: Timestamp;
}

export interface ListingsTable {
  id: Generated<string>;
  org_id: string;
  created_by: string;
  listing_type: StoredListingType;
  aircraft_type_id: string | null;
  engine_model_id: string | null;
  apu_model_id: string | null;
  landing_gear_type_id: string | null;
  title: string;
  description: string | null;
  msn: string | null;
  condition: string | null;
  price_usd: number | null;
  country: string | null;
  manufacturer: string | null;
  part_number: string | null;
  cycles_remaining: number | null;
  status: ListingStatus;
  audience: AudienceValue[] | null;
  audience_set_at: Date | null;
  documents: string[] | null;
  images: string[] | null;
  /** Operator suspension: while set, a seller may set the status only to suspended or archived. */
  moderation_hold: Generated<boolean>;
  /** Bumped by a BEFORE UPDATE trigger on every change (migration 0005); the ETag's source. */
  row_version: ColumnType<number, never, never>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: Timestamp;
}

export interface AuditEventsTable {
  id: Generated<string>;
  org_id: string | null;
  action: AuditAction;
  entity_type: AuditEntityType;
  entity_id: string | null;
  previous_state: NullableJson;
  new_state: NullableJson;
  metadata: Json;
  created_at: CreatedAt;
}

export interface SecurityAlertsTable {
  id: Generated<string>;
  kind: string;
  org_id: string | null;
  api_key_id: string | null;
  details: Json;
  created_at: CreatedAt;
}

export interface FileDeletionsTable {
  id: Generated<string>;
  owner_kind: OwnerKind;
  record_id: string;
  object_key: string;
  url: string;
  not_before: Timestamp;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: CreatedAt;
}

export interface IdempotencyKeysTable {
  org_id: string;
  user_id: string;
  key: string;
  fingerprint: string | null;
  state: 'running' | 'committed' | 'done';
  lease_token: string;
  lease_expires_at: Timestamp;
  response_status: number | null;
  /** jsonb: the replayed headers, by lower-case name. */
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  response_body: string | null;
  created_at: Timestamp;
}

/** Per organization: the number of its newest event and the highest number the purge removed. */
export interface EventStreamsTable {
  org_id: string;
  /** bigint, parsed as a number (database.ts): exact up to 2^53 events per organization. */
  last_seq: number;
  purged_through: ColumnType<number, number | undefined, number>;
}

export interface EventsTable {
  org_id: string;
  seq: ColumnType<number, number, never>;
  id: Generated<string>;
  /** Only EVENT_TYPES are written (appendEvents takes an EventType). */
  type: string;
  entity_type: 'teardown' | 'listing' | 'webhook';
  entity_id: string;
  /** jsonb: { entity_id, object, ... } as the event's `data`. */
  data: ColumnType<Record<string, unknown>, string, never>;
  created_at: Timestamp;
}

/** A partner's webhook endpoint (migration 0009): its settings, secrets and delivery cursor. */
export interface WebhookEndpointsTable {
  id: Generated<string>;
  org_id: string;
  /** 1..20, unique per organization: what caps an organization at 20 endpoints. */
  slot: number;
  url: string;
  description: string | null;
  /** null: every event type, types added later included. */
  event_types: string[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: Date | null;
  /** events.seq of the last event delivered (or skipped by the type filter). */
  last_delivered_seq: number;
  /** Failed attempts of the head event so far. */
  attempt: Generated<number>;
  next_attempt_at: Timestamp;
  failing_since: Date | null;
  lease_until: Date | null;
  lease_token: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One delivery attempt (a test send included). */
export interface WebhookDeliveriesTable {
  id: Generated<string>;
  /** Insertion order (identity): the log's order. */
  position: ColumnType<number, never, never>;
  endpoint_id: string;
  org_id: string;
  event_id: string;
  event_seq: number | null;
  event_type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: Date | null;
  created_at: Timestamp;
}

/** Teardowns per (organization, status), kept by triggers (migration 0011): the list's exact total without a count(*). */
export interface TeardownCountsTable {
  org_id: string;
  status: string;
  n: number;
}

export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  vocabulary_terms: VocabularyTermsTable;
  teardowns: TeardownsTable;
  teardown_counts: TeardownCountsTable;
  listings: ListingsTable;
  audit_events: AuditEventsTable;
  security_alerts: SecurityAlertsTable;
  file_deletions: FileDeletionsTable;
  idempotency_keys: IdempotencyKeysTable;
  event_streams: EventStreamsTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type User = Selectable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type VocabularyTerm = Selectable<VocabularyTermsTable>;
export type TeardownRow = Selectable<TeardownsTable>;
export type NewTeardown = Insertable<TeardownsTable>;
export type TeardownUpdate = Updateable<TeardownsTable>;
export type ListingRow = Selectable<ListingsTable>;
export type NewListing = Insertable<ListingsTable>;
export type ListingUpdate = Updateable<ListingsTable>;
