// Request and response schemas of the teardown resource. Field names follow partner-api.md:
// detail names (teardown_id, tail_number, country) on create / PATCH / detail, legacy names on
// the list and transition responses.
import { Type } from '@sinclair/typebox';
import { AUDIENCE_VALUES } from '../domain/records.js';
import {
  ASSET_TYPES,
  TRANSITION_ACTIONS,
  CREATE_STATUS_VALUES,
  INCIDENT_RELATED,
  type IncidentRelated,
  LEGACY_ASSET_TYPES,
  TEARDOWN_STATUSES,
  type TeardownStatus,
} from '../domain/teardowns.js';
import {
  CountryCode,
  documentOnly,
  DateOnly,
  DateTime,
  HttpUrl,
  ImportEnvelope,
  ImportResult,
  Nullable,
  PaginationQuery,
  StringEnum,
  Text,
  Timestamp,
  UpdatedSince,
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
  // Any item reaches the service, which answers 422 invalid_audience with the values it refused.
  Type.Array(Type.Unknown(documentOnly({ type: 'string', maxLength: 100, examples: ['Airline'] })), {
    maxItems: 50,
    description:
      'Airline, Lessor, OEM, MRO, Distributor, Others; case-insensitive; null clears. Another value answers 422 invalid_audience.',
  }),
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
    // Not an enum at run time: another value is 422 invalid_status (with `got`), not a schema item.
    status: Type.String({
      maxLength: 64,
      description: 'Starting, In process or Completed (case-sensitive); another value answers 422 invalid_status.',
      ...documentOnly({ enum: CREATE_STATUS_VALUES }),
    }),
    ...recordFields,
    traceability: Type.Optional(Traceability),
    incident_related: Type.Optional(IncidentRelatedInput),
  },
  {
    additionalProperties: false,
    allOf: createPerAssetType,
    title: 'CreateTeardown',
    description:
      'Universal fields, then the fields of the asset type: aircraft need aircraft_type, traceability and incident_related; engines need engine_model and take neither traceability nor incident_related.',
    examples: [
      {
        asset_type: 'aircraft',
        status: 'Starting',
        aircraft_type: 'A320-200',
        traceability: 'Air France',
        incident_related: 'No',
        tail_number: 'F-GKXA',
        msn: '1234',
        start_date: '2026-03-01',
        end_date: '2026-06-30',
        location: 'Toulouse-Francazal',
        country: 'FR',
        description: 'Full part-out; landing gear and APU removed first.',
      },
    ],
  },
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
  {
    additionalProperties: false,
    title: 'UpdateTeardown',
    description:
      'Sparse: only the keys sent are written; null clears the nullable fields. status cannot be changed here (use the transition).',
    examples: [{ description: 'Engines removed; airframe parts tagged.', end_date: '2026-07-15', audience: ['Airline', 'MRO'] }],
  },
);

export const TransitionBody = Type.Object(
  {
    // Not an enum at run time: an unknown action is the contract's plain-string 400, not a 422.
    action: Type.String({
      maxLength: 64,
      description: 'start_processing, complete, unpublish, archive, restore, submit; approve, reject, suspend need an admin.',
      ...documentOnly({ enum: TRANSITION_ACTIONS }),
    }),
    reason: Type.Optional(Nullable(Text(2000, { description: 'Required for reject; stored in the audit row.' }))),
  },
  { additionalProperties: false, title: 'TransitionRequest', examples: [{ action: 'start_processing' }] },
);

// A malformed id is answered like an unknown one (404 plain string), so the path is UUID-typed in
// the document only.
export const TeardownParams = Type.Object({
  teardown_id: Type.String({
    description: 'Teardown UUID.',
    ...documentOnly({ format: 'uuid', maxLength: 36, examples: ['5d0c8a57-3f0e-4c63-9d7a-1e2b3c4d5e6f'] }),
  }),
});

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
  sort_by: StringEnum(Object.keys(SORT_COLUMNS) as SortBy[], { default: 'created_at', description: 'Sort column; ties break on id.' }),
  sort_dir: StringEnum(['asc', 'desc'], { default: 'desc', description: 'Sort direction.' }),
  ...PaginationQuery,
});

/** The derived label (response only): null for draft, archived and suspended. */
// Typed string | null: the state machine computes it as text; the document lists the three values.
const StatusLabel = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  enum: ['Starting', 'In Process', 'Completed', null],
  description: 'Derived from status; null outside the three active statuses.',
});
const NullableText = Nullable(Type.String());
const UrlOrNull = Nullable(Type.String());

const TEARDOWN_EXAMPLE = {
  teardown_id: '5d0c8a57-3f0e-4c63-9d7a-1e2b3c4d5e6f',
  org_id: '0b6d4f3e-2a1c-4e5f-8a9b-7c6d5e4f3a2b',
  created_by: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  asset_type: 'aircraft',
  aircraft_type_id: '7f1e2d3c-4b5a-4968-8776-65544332211a',
  aircraft_type: {
    id: '7f1e2d3c-4b5a-4968-8776-65544332211a',
    name: 'A320-200',
    manufacturer: 'Airbus',
    category: 'Narrowbody',
    is_active: true,
    created_at: '2026-01-05T09:00:00.000Z',
  },
  engine_model: null,
  tail_number: 'F-GKXA',
  msn: '1234',
  traceability: 'Air France',
  incident_related: 'No',
  start_date: '2026-03-01',
  end_date: '2026-06-30',
  status: 'active_starting',
  teardown_status_label: 'Starting',
  description: 'Full part-out; landing gear and APU removed first.',
  location: 'Toulouse-Francazal',
  country: 'FR',
  audience: null,
  documents: null,
  images: null,
  harvest_list: null,
  occm: null,
  aircraft_details_doc: null,
  non_incident_statement: null,
  published_at: '2026-02-20T10:15:00.000Z',
  expires_at: '2026-05-21T10:15:00.000Z',
  created_at: '2026-02-20T10:15:00.000Z',
  updated_at: '2026-02-20T10:15:00.000Z',
};

export const TeardownDetail = Type.Object(
  {
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
    incident_related: Nullable(StringEnum(INCIDENT_RELATED)),
    start_date: Type.String({ format: 'date' }),
    end_date: Nullable(Type.String({ format: 'date' })),
    status: StringEnum(TEARDOWN_STATUSES),
    teardown_status_label: StatusLabel,
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
  },
  {
    title: 'Teardown',
    description: 'A teardown in the detail shape (create, read, PATCH). The list and transition answers use legacy names.',
    examples: [TEARDOWN_EXAMPLE],
  },
);

export const TeardownListItem = Type.Object(
  {
    id: Uuid,
    org_id: Uuid,
    asset_type: StringEnum(LEGACY_ASSET_TYPES),
    aircraft_type: Nullable(VocabularyView),
    msn: NullableText,
    registration: NullableText,
    status: StringEnum(TEARDOWN_STATUSES),
    teardown_status_label: StatusLabel,
    location: Type.String(),
    location_country: Type.String(),
    description: NullableText,
    published_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    title: 'TeardownListItem',
    examples: [
      {
        id: TEARDOWN_EXAMPLE.teardown_id,
        org_id: TEARDOWN_EXAMPLE.org_id,
        asset_type: 'aircraft',
        aircraft_type: TEARDOWN_EXAMPLE.aircraft_type,
        msn: '1234',
        registration: 'F-GKXA',
        status: 'active_starting',
        teardown_status_label: 'Starting',
        location: 'Toulouse-Francazal',
        location_country: 'FR',
        description: TEARDOWN_EXAMPLE.description,
        published_at: TEARDOWN_EXAMPLE.published_at,
        created_at: TEARDOWN_EXAMPLE.created_at,
        updated_at: TEARDOWN_EXAMPLE.updated_at,
      },
    ],
    description: 'A teardown in the list shape: legacy names id, registration, location_country.',
  },
);

export const TransitionResult = Type.Object(
  {
    id: Uuid,
    status: StringEnum(TEARDOWN_STATUSES),
    previous_status: Nullable(StringEnum(TEARDOWN_STATUSES)),
  },
  {
    title: 'TransitionResult',
    description: 'The teardown after a transition, in the legacy transition shape.',
    examples: [{ id: TEARDOWN_EXAMPLE.teardown_id, status: 'active_in_process', previous_status: null }],
  },
);

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
