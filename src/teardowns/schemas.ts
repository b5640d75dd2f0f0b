// Request and response schemas of the teardown resource. Field names follow partner-api.md:
// detail names (teardown_id, tail_number, country) on create / PATCH / detail, legacy names on
// the list and transition responses.
import { Type } from '@sinclair/typebox';
import { AUDIENCE_VALUES } from '../domain/records.js';
import {
  ASSET_TYPES,
  CREATE_STATUS_VALUES,
  INCIDENT_RELATED,
  type IncidentRelated,
  LEGACY_ASSET_TYPES,
  TEARDOWN_STATUSES,
  type TeardownStatus,
} from '../domain/teardowns.js';
import { UpdatedSince } from '../http/schemas.js';
import {
  authErrorResponses,
  CountryCode,
  DateOnly,
  DateTime,
  HttpUrl,
  ImportEnvelope,
  ImportResult,
  Nullable,
  PaginationQuery,
  plainErrorRef,
  StringEnum,
  Text,
  Timestamp,
  Uuid,
} from '../http/schemas.js';
import { PYDANTIC } from '../http/validation.js';
import { VocabularyView } from '../vocabularies/schemas.js';

// Year 0000 passes the `date` format but PostgreSQL refuses it; it must be a 422, never a 500.
const NOT_YEAR_ZERO = '^(?!0000)';
const DateField = Type.String({
  ...DateOnly,
  pattern: NOT_YEAR_ZERO,
  [PYDANTIC]: { type: 'date_from_datetime_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' },
});
export const DateTimeField = Type.String({
  ...DateTime,
  pattern: NOT_YEAR_ZERO,
  [PYDANTIC]: { type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime (ISO 8601 with a time zone)' },
});

// Limits on free text: generous for real records, small enough that nothing absurd is stored.
const VocabularyName = Text(200, { description: 'Vocabulary name; case-insensitive, edges trimmed.' });
const TailNumber = Text(32, { description: 'Aircraft registration.', examples: ['F-GKXA'] });
const Msn = Text(64, { description: 'Manufacturer serial number (engine serial number for engines).' });
const Traceability = Text(200, { minLength: 1, description: 'Last operator name; aircraft only.' });
const Location = Text(200, { minLength: 1, description: 'Free-text teardown location.' });
const Description = Text(10_000);
const IncidentRelatedInput = StringEnum(INCIDENT_RELATED);
// Nullable() keeps the enum as it is, which would refuse the null it allows: null joins the set here.
const NullableIncidentRelated = Type.Unsafe<IncidentRelated | null>({ type: ['string', 'null'], enum: [...INCIDENT_RELATED, null] });
const UrlList = Type.Array(HttpUrl, { maxItems: 500 });
const AudienceInput = Nullable(
  Type.Array(Type.Unknown(), { maxItems: 50, description: 'Airline, Lessor, OEM, MRO, Distributor, Others; case-insensitive.' }),
);

/** JSON Schema's `if asset_type = <type> then <rules>`: the rules' errors join the same 422 as every other item. */
const whenAssetType = (assetType: string, rules: Record<string, unknown>) => ({
  if: { properties: { asset_type: { const: assetType } }, required: ['asset_type'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable
  then: rules,
});

const createPerAssetType = [
  whenAssetType('aircraft', { required: ['traceability', 'incident_related'] }),
  // Engines carry no traceability or incident_related: they are not part of the engine form.
  whenAssetType('engine', { properties: { traceability: false, incident_related: false } }),
];

/** The fields a teardown record takes on create and on operator import alike. */
const recordFields = {
  start_date: DateField,
  end_date: Type.Optional(Nullable(DateField)),
  location: Location,
  country: CountryCode,
  aircraft_type: Type.Optional(VocabularyName),
  engine_model: Type.Optional(VocabularyName),
  tail_number: Type.Optional(Nullable(TailNumber)),
  msn: Type.Optional(Nullable(Msn)),
  description: Type.Optional(Nullable(Description)),
};

export const CreateTeardownBody = Type.Object(
  {
    asset_type: StringEnum(ASSET_TYPES, { description: 'aircraft or engine; apu and landing_gear are legacy, read-only.' }),
    status: Type.String({
      maxLength: 64,
      description: 'Starting, In process or Completed (case-sensitive).',
      examples: CREATE_STATUS_VALUES,
    }),
    ...recordFields,
    traceability: Type.Optional(Traceability),
    incident_related: Type.Optional(IncidentRelatedInput),
  },
  { additionalProperties: false, allOf: createPerAssetType },
);

export const UpdateTeardownBody = Type.Object(
  {
    aircraft_type: Type.Optional(VocabularyName),
    engine_model: Type.Optional(VocabularyName),
    tail_number: Type.Optional(Nullable(TailNumber)),
    msn: Type.Optional(Nullable(Msn)),
    traceability: Type.Optional(Traceability),
    description: Type.Optional(Nullable(Description)),
    location: Type.Optional(Location),
    start_date: Type.Optional(DateField),
    end_date: Type.Optional(Nullable(DateField)),
    incident_related: Type.Optional(IncidentRelatedInput),
    country: Type.Optional(CountryCode),
    audience: Type.Optional(AudienceInput),
    images: Type.Optional(UrlList),
    documents: Type.Optional(UrlList),
  },
  { additionalProperties: false },
);

export const TransitionBody = Type.Object(
  {
    action: Type.String({
      maxLength: 64,
      description: 'start_processing, complete, unpublish, archive, restore, submit; approve, reject, suspend need an admin.',
    }),
    reason: Type.Optional(Nullable(Text(2000, { description: 'Required for reject; stored in the audit row.' }))),
  },
  { additionalProperties: false },
);

// A malformed id is answered like an unknown one (404 plain string), so the path is not UUID-typed.
export const TeardownParams = Type.Object({ teardown_id: Type.String({ description: 'Teardown UUID.' }) });

/** TEARDOWN_STATUSES in the order the list filter's docs and errors name them. */
export const LIST_STATUSES = [
  'active_starting',
  'active_in_process',
  'active_completed',
  'suspended',
  'archived',
  'draft',
] as const satisfies readonly TeardownStatus[];
const statusAlternatives = LIST_STATUSES.join('|');
const StatusCsv = Type.String({
  pattern: `^\\s*(?:(?:${statusAlternatives})\\s*(?:,\\s*(?:${statusAlternatives})\\s*)*)?$`,
  maxLength: 500,
  description: `Comma-separated: ${LIST_STATUSES.join(', ')}. Default: every status except archived.`,
  [PYDANTIC]: { type: 'literal_error', msg: `Input should be a comma-separated list of ${LIST_STATUSES.map((s) => `'${s}'`).join(', ')}` },
});

export const SORT_COLUMNS = {
  created_at: 'created_at',
  msn: 'msn',
  status: 'status',
  location_country: 'country',
  teardown_start_date: 'start_date',
  asset_type: 'asset_type',
  updated_at: 'updated_at',
} as const;
export type SortBy = keyof typeof SORT_COLUMNS;

export const ListTeardownsQuery = Type.Object({
  asset_type: Type.Optional(StringEnum(ASSET_TYPES)),
  aircraft_type: Type.Optional(VocabularyName),
  engine_model: Type.Optional(VocabularyName),
  status: Type.Optional(StatusCsv),
  country: Type.Optional(Text(100, { description: 'Case-insensitive substring of the country code.' })),
  search: Type.Optional(Text(200, { description: 'Case-insensitive substring of msn, registration or description.' })),
  updated_since: Type.Optional(UpdatedSince),
  // Object.keys answers string[]; these are SORT_COLUMNS' own literal keys.
  sort_by: StringEnum(Object.keys(SORT_COLUMNS) as SortBy[], { default: 'created_at' }),
  sort_dir: StringEnum(['asc', 'desc'], { default: 'desc' }),
  ...PaginationQuery,
});

const NullableText = Nullable(Type.String());
const UrlOrNull = Nullable(Type.String());

export const TeardownDetail = Type.Object({
  teardown_id: Uuid,
  org_id: Uuid,
  created_by: Uuid,
  asset_type: StringEnum(LEGACY_ASSET_TYPES),
  aircraft_type_id: Type.Optional(Uuid),
  aircraft_type: Nullable(VocabularyView),
  engine_model: Nullable(VocabularyView),
  apu_model: Type.Optional(VocabularyView),
  landing_gear_type: Type.Optional(VocabularyView),
  tail_number: NullableText,
  msn: NullableText,
  traceability: NullableText,
  incident_related: NullableText,
  start_date: Type.String({ format: 'date' }),
  end_date: Nullable(Type.String({ format: 'date' })),
  status: StringEnum(TEARDOWN_STATUSES),
  teardown_status_label: NullableText,
  description: NullableText,
  location: Type.String(),
  country: Type.String(),
  audience: Nullable(Type.Array(StringEnum(AUDIENCE_VALUES))),
  audience_set_at: Type.Optional(Timestamp),
  documents: Nullable(Type.Array(Type.String())),
  images: Nullable(Type.Array(Type.String())),
  harvest_list: UrlOrNull,
  occm: UrlOrNull,
  aircraft_details_doc: UrlOrNull,
  non_incident_statement: UrlOrNull,
  published_at: Timestamp,
  expires_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TeardownListItem = Type.Object({
  id: Uuid,
  org_id: Uuid,
  asset_type: StringEnum(LEGACY_ASSET_TYPES),
  aircraft_type: Nullable(VocabularyView),
  msn: NullableText,
  registration: NullableText,
  status: StringEnum(TEARDOWN_STATUSES),
  teardown_status_label: NullableText,
  location: Type.String(),
  location_country: Type.String(),
  description: NullableText,
  published_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TransitionResult = Type.Object({
  id: Uuid,
  status: StringEnum(TEARDOWN_STATUSES),
  previous_status: NullableText,
});

export const errorResponses = { ...authErrorResponses, 404: plainErrorRef };

// --- admin (operator) rows

const ImportItem = Type.Object(
  {
    asset_type: StringEnum(LEGACY_ASSET_TYPES),
    status: StringEnum(TEARDOWN_STATUSES),
    ...recordFields,
    apu_model: Type.Optional(VocabularyName),
    landing_gear_type: Type.Optional(VocabularyName),
    traceability: Type.Optional(Nullable(Traceability)),
    incident_related: Type.Optional(NullableIncidentRelated),
    audience: Type.Optional(AudienceInput),
    documents: Type.Optional(Nullable(UrlList)),
    images: Type.Optional(Nullable(UrlList)),
    harvest_list: Type.Optional(Nullable(HttpUrl)),
    occm: Type.Optional(Nullable(HttpUrl)),
    aircraft_details_doc: Type.Optional(Nullable(HttpUrl)),
    non_incident_statement: Type.Optional(Nullable(HttpUrl)),
    published_at: Type.Optional(DateTimeField),
    expires_at: Type.Optional(DateTimeField),
    created_at: Type.Optional(DateTimeField),
  },
  {
    additionalProperties: false,
    allOf: [whenAssetType('aircraft', { required: ['aircraft_type'] }), whenAssetType('engine', { required: ['engine_model'] })],
  },
);
export type ImportItemInput = typeof ImportItem.static;

export const ImportTeardownsBody = ImportEnvelope(ImportItem);
export { ImportResult };

export const AdminExpiryBody = Type.Object({ expires_at: DateTimeField }, { additionalProperties: false });
export const AdminTeardownParams = Type.Object({ id: Type.String() });
