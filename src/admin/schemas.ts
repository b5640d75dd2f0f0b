// Request and response schemas of the operator API.
import { Type } from '@sinclair/typebox';
import { ACCOUNT_STATUSES, CAPABILITIES, SUBSCRIPTION_STATUSES, USER_STATUSES } from '../domain/accounts.js';
import type { VocabularyKind } from '../domain/records.js';
import { DateTime, Nullable, StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import { VocabularyView } from '../vocabularies/schemas.js';

export const AccountStatus = StringEnum(ACCOUNT_STATUSES);
export const SubscriptionStatus = StringEnum(SUBSCRIPTION_STATUSES);
export const CapabilityList = Type.Array(StringEnum(CAPABILITIES), { maxItems: 2 });
export const UserStatus = StringEnum(USER_STATUSES);

const orgFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  account_status: AccountStatus,
  subscription_status: SubscriptionStatus,
  api_access_enabled: Type.Boolean(),
};

export const CreateOrganizationBody = Type.Object(
  {
    name: orgFields.name,
    account_status: Type.Optional(orgFields.account_status),
    subscription_status: Type.Optional(orgFields.subscription_status),
    api_access_enabled: Type.Optional(orgFields.api_access_enabled),
  },
  { additionalProperties: false },
);
export const UpdateOrganizationBody = Type.Partial(Type.Object(orgFields), { additionalProperties: false });

export const OrganizationView = Type.Object({
  id: Uuid,
  name: Type.String(),
  account_status: AccountStatus,
  subscription_status: SubscriptionStatus,
  api_access_enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    capabilities: CapabilityList,
    status: Type.Optional(UserStatus),
  },
  { additionalProperties: false },
);
export const UpdateUserBody = Type.Object(
  { status: Type.Optional(UserStatus), capabilities: Type.Optional(CapabilityList) },
  { additionalProperties: false },
);
export const UserView = Type.Object({
  id: Uuid,
  org_id: Uuid,
  email: Type.String(),
  capabilities: Type.Array(StringEnum(CAPABILITIES)),
  status: UserStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MintKeyBody = Type.Object(
  { name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))), expires_at: Type.Optional(Nullable(DateTime)) },
  { additionalProperties: false },
);
export const MintedKeyView = Type.Object({
  id: Uuid,
  key: Type.String({ description: 'The secret, shown once.' }),
  prefix: Type.String(),
  expires_at: Nullable(Timestamp),
  user_id: Uuid,
  org_id: Uuid,
  name: Nullable(Type.String()),
});
export const KeyView = Type.Object({
  id: Uuid,
  org_id: Uuid,
  user_id: Uuid,
  name: Nullable(Type.String()),
  prefix: Type.String(),
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  rotated_at: Nullable(Timestamp),
  replaced_by: Nullable(Uuid),
  last_used_at: Nullable(Timestamp),
  created_at: Timestamp,
});

export const IdParams = Type.Object({ id: Uuid });

/** Vocabulary kinds as the operator names them in paths and CLI flags. */
export const VOCABULARY_KINDS = {
  'aircraft-types': 'aircraft_type',
  'engine-models': 'engine_model',
  'apu-models': 'apu_model',
} as const satisfies Record<string, VocabularyKind>;
export type VocabularyKindPath = keyof typeof VOCABULARY_KINDS;
export const VOCABULARY_KIND_PATHS = ['aircraft-types', 'engine-models', 'apu-models'] as const satisfies readonly VocabularyKindPath[];
export const VocabularyKindParam = Type.Object({
  kind: StringEnum(VOCABULARY_KIND_PATHS),
});
export const CreateVocabularyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    manufacturer: Type.String({ minLength: 1, maxLength: 200 }),
    category: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export { VocabularyView };

export const AuditQuery = Type.Object({
  entity_id: Type.Optional(Uuid),
  org_id: Type.Optional(Uuid),
  action: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});
export const AuditEventView = Type.Object({
  id: Uuid,
  org_id: Nullable(Uuid),
  action: Type.String(),
  entity_type: Type.String(),
  entity_id: Nullable(Uuid),
  previous_state: Type.Unknown(),
  new_state: Type.Unknown(),
  metadata: Type.Unknown(),
  created_at: Timestamp,
});
export const AlertsQuery = Type.Object({
  org_id: Type.Optional(Uuid),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});
export const AlertView = Type.Object({
  id: Uuid,
  kind: Type.String(),
  org_id: Nullable(Uuid),
  api_key_id: Nullable(Uuid),
  details: Type.Unknown(),
  created_at: Timestamp,
});
export const JobsRunView = Type.Object({
  archived_teardowns: Type.Integer(),
  revoked_keys: Type.Integer(),
  deleted_files: Type.Integer(),
  purged_idempotency_keys: Type.Integer(),
  purged_events: Type.Integer({ description: 'Events older than EVENT_RETENTION_DAYS deleted from the event feed.' }),
  purged_webhook_deliveries: Type.Integer({ description: 'Webhook delivery attempts older than EVENT_RETENTION_DAYS deleted.' }),
});
