// Schemas shared by every feature: identifiers, dates, countries, pagination and error bodies.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { PYDANTIC } from './validation.js';

/** `T | null` as one JSON Schema type list, so a bad value yields one clear error, not an anyOf pair. */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, enum: values, ...rest } = schema as unknown as { type: string; enum?: unknown[] };
  // An enum must list null itself: `type` admitting null is not enough for the enum keyword.
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'], ...(values ? { enum: [...values, null] } : {}) });
}

/** A closed set of strings as one `enum` (one clear literal_error), not an anyOf of constants. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Uuid = Type.String({ format: 'uuid' });
// The `date` and `date-time` formats refuse year 0000 and leap seconds (validation.ts, storableDates).
export const DateOnly = Type.String({
  format: 'date',
  examples: ['2026-03-01'],
  [PYDANTIC]: { type: 'date_from_datetime_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' },
});
export const DateTime = Type.String({
  format: 'date-time',
  [PYDANTIC]: { type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime (ISO 8601 with a time zone)' },
});
/** `updated_since` of the list endpoints: an RFC 3339 date-time with its offset (`Z` or `+02:00`). */
export const UpdatedSince = Type.String({
  format: 'date-time',
  pattern: '^(?!0000)',
  description:
    'Only records changed at or after this instant (`updated_at >= updated_since`): an RFC 3339 date-time with its offset, e.g. `2026-11-22T19:40:00Z` (URL-encode a `+` offset as `%2B`). Use with `sort_by=updated_at` to fetch what changed since your last sync.',
  examples: ['2026-11-22T19:40:00Z'],
  [PYDANTIC]: { type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime (RFC 3339 with a time zone offset)' },
});
/** A response timestamp: handlers return Date objects, serialised as ISO 8601 UTC. */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
export const HttpUrl = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
  [PYDANTIC]: { type: 'url_parsing', msg: 'Input should be a valid absolute http(s) URL' },
});

export const CountryCode = Type.String({
  pattern: '^[A-Za-z]{2}$',
  description: 'ISO 3166-1 alpha-2 code, case-insensitive; stored upper-case.',
  examples: ['FR'],
  [PYDANTIC]: { type: 'value_error', msg: 'Value error, country must be an ISO 3166-1 alpha-2 code' },
});

/** Bounded free text: generous, but no field may carry megabytes. */
export const Text = (maxLength = 2000, extra: Record<string, unknown> = {}) => Type.String({ maxLength, ...extra });

export const PaginationQuery = {
  page: Type.Integer({ minimum: 1, default: 1, description: '1-indexed page number' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100' }),
};

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    pages: Type.Integer(),
  });

/** The operator import envelope (decisions.md section 7): one organization, one creator, up to 1,000 items. */
export const ImportEnvelope = <T extends TSchema>(item: T) =>
  Type.Object(
    { org_id: Uuid, created_by: Uuid, items: Type.Array(item, { minItems: 1, maxItems: 1000 }) },
    { additionalProperties: false },
  );
export const ImportResult = Type.Object({ ids: Type.Array(Uuid) });

export const StatusOk = Type.Object({ status: Type.Literal('ok') });

const SchemaItem = Type.Object({
  type: Type.String(),
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  input: Type.Optional(Type.Unknown()),
  ctx: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const BusinessError = Type.Object(
  {
    detail: Type.Object(
      { error_code: Type.String(), message: Type.String() },
      { additionalProperties: true },
    ),
  },
  { $id: 'BusinessError', description: 'Business error: detail.error_code names the cause.' },
);
export const ValidationError = Type.Object(
  { detail: Type.Array(SchemaItem) },
  { $id: 'ValidationError', description: 'Schema error in pydantic form.' },
);
export const PlainError = Type.Object(
  { detail: Type.String() },
  { $id: 'PlainError', description: 'Plain-string detail (404s, refused transitions).' },
);

const ref = (id: string) => Type.Unsafe({ $ref: `${id}#` });

/** Error responses every authenticated route can give; features add their own on top. */
export const authErrorResponses = {
  400: ref('BusinessError'),
  401: ref('BusinessError'),
  403: ref('BusinessError'),
  413: ref('BusinessError'),
  422: Type.Unsafe({ description: 'Schema error (array) or business error (invalid_status, vocab_required, invalid_audience)' }),
  429: ref('BusinessError'),
};
export const plainErrorRef = ref('PlainError');
export const businessErrorRef = ref('BusinessError');

// --- conditional requests (http/conditional.ts): what the OpenAPI document says about them
const ETAG_HEADER = {
  ETag: { type: 'string', description: 'Strong entity-tag of the record (`"<version>-<hash>"`); opaque, changes with every change.' },
};
/** A one-record response schema that also declares its ETag header (read by @fastify/swagger only). */
export const withEtag = <T extends TSchema>(schema: T): T => ({ ...schema, headers: ETAG_HEADER }) as T;

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Write only if the record still has one of these ETags ("*": if it exists). A mismatch answers 412 precondition_failed with current_etag, and nothing changes.',
    }),
  ),
});
export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'Answer 304 Not Modified, without a body, when the record still has one of these ETags ("*": any).' }),
  ),
});
export const notModifiedResponse = { 304: Type.Unsafe({ description: 'Not Modified: the ETag sent in If-None-Match is current.', headers: ETAG_HEADER }) };
export const preconditionResponses = {
  412: Type.Unsafe({ $ref: 'BusinessError#', description: 'precondition_failed: the If-Match ETag is stale; detail.current_etag is the current one.' }),
};
