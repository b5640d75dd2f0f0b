// Schemas shared by every feature: identifiers, dates, countries, pagination and error bodies.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { ErrorCode } from '../observability/openapi.js';
import { PYDANTIC } from './validation.js';

/**
 * Keywords for the document only, merged into their schema by the document transform: what Ajv
 * must not enforce because the contract answers otherwise (a non-UUID id is the plain 404, not a
 * 422; an unknown create `status` is 422 `invalid_status`, not a schema item).
 */
export const DOC_ONLY = 'x-doc-only';
export const documentOnly = (keywords: Record<string, unknown>) => ({ [DOC_ONLY]: keywords });

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
  // No `examples`: Swagger UI's "Try it out" would pre-fill the filter and hide most records.
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
  // The pattern already allows two letters only; a run-time maxLength would only add a second item.
  ...documentOnly({ maxLength: 2 }),
});

/** Bounded free text: generous, but no field may carry megabytes. */
export const Text = (maxLength = 2000, extra: Record<string, unknown> = {}) => Type.String({ maxLength, ...extra });

/**
 * The largest page asked for. Any page past the end answers an empty page (db/list-query.ts caps
 * the offset, so even 10^18 is no 500), and pages are int64: the largest double an int64 holds,
 * 2^63 - 1024, so that every typed client can send it. Past it the answer is a 422 item.
 */
export const MAX_PAGE = 2 ** 63 - 1024;

export const PaginationQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, format: 'int64', default: 1, description: '1-indexed page number' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, format: 'int32', default: 20, description: 'Items per page, 1 to 100' }),
};

/** A page of `item`s, named `<title>` in the document. */
export const Page = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    {
      items: Type.Array(item),
      total: Type.Integer({ minimum: 0 }),
      page: Type.Integer({ minimum: 1, maximum: MAX_PAGE }),
      per_page: Type.Integer({ minimum: 1, maximum: 100 }),
      pages: Type.Integer({ minimum: 0 }),
    },
    {
      title,
      description: 'One page: `items`, the `total` count, this `page`, `per_page` and the number of `pages` (0 when total is 0).',
      // The item's own example, on a page of one.
      ...(item.examples ? { examples: [{ items: [(item.examples as unknown[])[0]], total: 1, page: 1, per_page: 20, pages: 1 }] } : {}),
    },
  );

/** The operator import envelope (decisions.md section 7): one organization, one creator, up to 1,000 items. */
export const ImportEnvelope = <T extends TSchema>(item: T) =>
  Type.Object(
    { org_id: Uuid, created_by: Uuid, items: Type.Array(item, { minItems: 1, maxItems: 1000 }) },
    { additionalProperties: false },
  );
export const ImportResult = Type.Object({ ids: Type.Array(Uuid) });

export const StatusOk = Type.Object(
  { status: StringEnum(['ok']) },
  { title: 'StatusOk', description: 'Done; also when there was nothing to remove (idempotent).', examples: [{ status: 'ok' }] },
);

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

export const plainErrorRef = ref('PlainError');
export const businessErrorRef = ref('BusinessError');

// --- what the OpenAPI document says beyond the run-time schemas (observability/openapi.ts)

/**
 * A route's own error answers, declared in its schema as `'x-errors'` (docs/architecture.md,
 * "Documenting a route"). The check chain (400 invalid_organization_header, 401, 403, 429, 500,
 * 503), the schema 422, 413 / 415 of JSON bodies, 412 of If-Match and the Idempotency-Key answers
 * of POSTs are added to every operation by the document transform; declare only what is the route's.
 */
export interface RouteErrors {
  /** The route needs the seller capability: 403 insufficient_capability. */
  seller?: boolean;
  /** The plain-string 404 of the route's record (`Teardown not found`). */
  notFound?: string;
  /** Business error codes by status (the codes of observability/openapi.ts ERROR_CATALOG). */
  codes?: Partial<Record<400 | 409 | 410 | 422 | 502, ErrorCode[]>>;
  /** A 400 with a plain-string detail: what it means and the messages it can carry. */
  plain400?: { description: string; examples: string[] };
}
export const routeErrors = (errors: RouteErrors) => ({ 'x-errors': errors });

/** The route takes its body as optional (an absent body means "nothing"): the document says so. */
export const optionalBody = { 'x-body-optional': true } as const;

// --- conditional requests (http/conditional.ts): what the OpenAPI document says about them
const ETAG_HEADER = {
  ETag: {
    type: 'string',
    maxLength: 100,
    pattern: '^"[^"]*"$',
    description: 'Strong entity-tag of the record (`"<version>-<hash>"`); opaque, changes with every change.',
  },
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
export const notModifiedResponse = {
  304: Type.Unsafe({ type: 'null', description: 'Not Modified: the ETag sent in If-None-Match is current.', headers: ETAG_HEADER }),
};
