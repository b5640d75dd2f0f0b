// The public OpenAPI document: the partner operations of @fastify/swagger's document, completed
// with what every operation shares so that no route schema repeats it (docs/architecture.md,
// "Documenting a route"):
// - named components: every schema with a `title` becomes #/components/schemas/<title>;
// - the error responses of the check chain (400, 401, 403, 429, 500, 503), the route's own error
//   codes (its `x-errors` declaration) and the conditional / idempotency answers, each typed with
//   the error codes that operation can return and an example built by the real error factories;
// - the HTTP layer's refusals (408, 414, 431), the same for every operation: shared components;
// - the headers every response carries: x-request-id, the rate-limit fields, Retry-After;
// - documentation-only keywords (`x-doc-only`: the uuid format of path ids, the enum of create
//   `status`) that must not reach the run-time validation, where they would change the answer.

import { refusalOf } from '../http/client-errors.js';
import { invalidPreconditionHeader, preconditionFailed } from '../http/conditional.js';
import {
  ApiError,
  apiAccessDisabled,
  apiKeyCreatorRevoked,
  apiKeyExpired,
  cursorExpired,
  fileTooLarge,
  idempotencyKeyInUse,
  idempotencyKeyReused,
  insufficientCapability,
  invalidApiKey,
  invalidAudience,
  invalidContentType,
  invalidIdempotencyKey,
  invalidOrganizationHeader,
  invalidStatus,
  invalidWebhookUrl,
  missingOrMalformedAuthorization,
  organizationMismatch,
  orgChurned,
  orgInactive,
  payloadTooLarge,
  storageUnavailable,
  subscriptionRequired,
  suspendedByOperator,
  tooManyRequests,
  tooManyWebhookEndpoints,
  unknownVocabulary,
  vocabRequired,
} from '../http/errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, serviceUnavailable } from '../http/outages.js';
import { malformedUrl, uriTooLong } from '../http/routing.js';
import { DOC_ONLY, type RouteErrors } from '../http/schemas.js';
import { PYDANTIC } from '../http/validation.js';
import { MAX_ENDPOINTS_PER_ORG } from '../webhooks/repository.js';

type Json = Record<string, unknown>;

const INT32_MAX = 2_147_483_647;

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

export const COMMON_HEADERS = {
  XRequestId: header("The request's id: the caller's own x-request-id when safe (1-128 of [A-Za-z0-9._:-]), else a fresh UUID.", {
    type: 'string',
    maxLength: 128,
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
  }),
  RateLimitLimit: header('Requests allowed per one-minute window for this key.', {
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: INT32_MAX,
  }),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX }),
  RateLimitReset: header('Seconds until the window resets.', { type: 'integer', format: 'int32', minimum: 0, maximum: 60 }),
  RateLimitPolicy: header('The policy, IETF draft form: `"minute";q=<limit>;w=60`.', { type: 'string', maxLength: 100 }),
  RateLimit: header('The window, IETF draft form: `"minute";r=<remaining>;t=<seconds to reset>`.', { type: 'string', maxLength: 100 }),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', format: 'int32', minimum: 0, maximum: 3600 }),
  IdempotentReplayed: header('`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
};

/** The request header every public POST takes (parsed by http/idempotency.ts, so a bad one is a 400, not a 422). */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: 1-255 printable ASCII characters (or an RFC 8941 quoted string), scoped to your organization and the user who minted the key, kept 24 hours. A retry with the same key and content gets the first answer back with `Idempotent-Replayed: true`; other content answers 422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  example: 'b5f0c3a2-8a4e-4f0e-9d59-3f1f6f0d2a11',
};

/** Header parameters the routes declare (If-Match, If-None-Match): bounded well under the 16 KB header limit. */
const HEADER_PARAMETER_MAX_LENGTH = 1024;

// --- the error catalog: one real answer per error code, built by the factories the service throws

const VOCABULARY_EXAMPLE = unknownVocabulary('aircraft_type', 'A320-900', ['A318-100', 'A319-100', 'A320-200', 'A320neo', 'A321-200']);
const ETAG_EXAMPLE = '"3-9f2c4e1a"';

function httpLayerRefusal(code: string): ApiError {
  const { status, ...detail } = refusalOf({ code }, { headersSeconds: 10, requestSeconds: 300 });
  return new ApiError(status, detail);
}

export const ERROR_CATALOG = {
  invalid_organization_header: invalidOrganizationHeader(),
  // The router's answer to a URL it cannot decode (http/routing.ts), before any route runs.
  bad_request: malformedUrl(),
  invalid_idempotency_key: invalidIdempotencyKey(),
  invalid_precondition_header: invalidPreconditionHeader('if-match'),
  unknown_vocabulary: VOCABULARY_EXAMPLE,
  file_too_large: fileTooLarge(52_428_800),
  invalid_content_type: invalidContentType('image/svg+xml', ['image/jpeg', 'image/png', 'image/webp', 'image/gif']),
  missing_or_malformed_authorization: missingOrMalformedAuthorization(),
  invalid_api_key: invalidApiKey(),
  api_key_expired: apiKeyExpired(),
  organization_mismatch: organizationMismatch(),
  org_inactive: orgInactive(),
  org_churned: orgChurned(),
  subscription_required: subscriptionRequired('past_due'),
  api_access_disabled: apiAccessDisabled(),
  api_key_creator_revoked: apiKeyCreatorRevoked(),
  insufficient_capability: insufficientCapability('seller'),
  idempotency_key_in_use: idempotencyKeyInUse(),
  suspended_by_operator: suspendedByOperator('suspended', ['suspended', 'archived']),
  precondition_failed: preconditionFailed(ETAG_EXAMPLE),
  payload_too_large: payloadTooLarge(10_485_760),
  invalid_status: invalidStatus('Draft', ['Starting', 'In process', 'Completed']),
  vocab_required: vocabRequired('aircraft_type'),
  invalid_audience: invalidAudience(['Airlines'], ['Airline', 'Lessor', 'OEM', 'MRO', 'Distributor', 'Others']),
  idempotency_key_reused: idempotencyKeyReused(),
  too_many_requests: tooManyRequests(12),
  storage_unavailable: storageUnavailable(),
  cursor_expired: cursorExpired(),
  invalid_webhook_url: invalidWebhookUrl('A webhook URL must use https (got http).'),
  too_many_webhook_endpoints: tooManyWebhookEndpoints(MAX_ENDPOINTS_PER_ORG),
  service_unavailable: serviceUnavailable('database', DATABASE_RETRY_AFTER_SECONDS),
  // Refusals of the HTTP layer, below every route (http/client-errors.ts, http/routing.ts): any
  // operation may meet them. The timeouts named are the defaults (HTTP_*_TIMEOUT_SECONDS).
  request_timeout: httpLayerRefusal('ERR_HTTP_REQUEST_TIMEOUT'),
  uri_too_long: uriTooLong(),
  request_header_fields_too_large: httpLayerRefusal('HPE_HEADER_OVERFLOW'),
  // The error handler builds this one inline (fromFrameworkError); the same body here.
  unsupported_media_type: new ApiError(415, {
    error_code: 'unsupported_media_type',
    message: 'Send application/json bodies (multipart/form-data on upload endpoints).',
  }),
} satisfies Record<string, ApiError>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The check chain of every authenticated operation (decisions.md section 1). */
const UNAUTHENTICATED: ErrorCode[] = ['missing_or_malformed_authorization', 'invalid_api_key', 'api_key_expired'];
const FORBIDDEN: ErrorCode[] = [
  'organization_mismatch',
  'org_inactive',
  'org_churned',
  'subscription_required',
  'api_access_disabled',
  'api_key_creator_revoked',
];

const ERROR_TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  408: 'Request timeout',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Validation error',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** BusinessError narrowed to the codes one response can carry. */
const businessOf = (codes: ErrorCode[]) => ({
  allOf: [schemaRef('BusinessError')],
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      required: ['error_code'],
      properties: { error_code: { type: 'string', enum: codes } },
      additionalProperties: true,
    },
  },
});

interface Alternative {
  schema: Json;
  examples: Record<string, { summary: string; value: unknown }>;
}

const businessAlternative = (codes: ErrorCode[]): Alternative => ({
  schema: businessOf(codes),
  examples: Object.fromEntries(
    codes.map((code) => [code, { summary: ERROR_CATALOG[code].message, value: { detail: ERROR_CATALOG[code].detail } }]),
  ),
});

const plainAlternative = (messages: string[], closed: boolean): Alternative => ({
  schema: closed
    ? { allOf: [schemaRef('PlainError')], required: ['detail'], properties: { detail: { type: 'string', enum: messages } } }
    : schemaRef('PlainError'),
  examples: Object.fromEntries(messages.map((message, i) => [`plain_${i + 1}`, { summary: message, value: { detail: message } }])),
});

const VALIDATION_EXAMPLE = {
  detail: [
    {
      type: 'missing',
      loc: ['body'],
      msg: 'Field required: start_date, country',
      input: { asset_type: 'aircraft', status: 'Starting' },
      ctx: { fields: ['start_date', 'country'] },
    },
    { type: 'extra_forbidden', loc: ['body', 'registration'], msg: 'Extra inputs are not permitted', input: 'F-GKXA' },
  ],
};

function errorResponse(status: number, alternatives: Alternative[], extra: string[] = []): Json {
  const schema = alternatives.length === 1 ? alternatives[0].schema : { oneOf: alternatives.map((a) => a.schema) };
  const examples = Object.assign({}, ...alternatives.map((a) => a.examples));
  const codes = alternatives.flatMap((a) => Object.keys(a.examples).filter((k) => !k.startsWith('plain_') && k !== 'schema'));
  const description = [
    ERROR_TITLES[status] ?? 'Error',
    codes.length ? `: ${codes.join(', ')}` : '',
    extra.length ? `. ${extra.join(' ')}` : '',
  ].join('');
  return { description, content: { 'application/json': { schema, examples } } };
}

const validationAlternative: Alternative = {
  schema: schemaRef('ValidationError'),
  examples: { schema: { summary: 'Schema errors, all of them in one answer', value: VALIDATION_EXAMPLE } },
};

/** Every error response of one operation. */
function errorResponses(
  errors: RouteErrors,
  operation: { method: string; jsonBody: boolean; ifMatch: boolean; ifNoneMatch: boolean },
): Record<string, Json> {
  const own = errors.codes ?? {};
  const post = operation.method === 'post';
  const responses: Record<string, Json> = {};
  const codes400: ErrorCode[] = ['invalid_organization_header', ...(own[400] ?? []), 'bad_request'];
  if (post) codes400.push('invalid_idempotency_key');
  if (operation.ifMatch || operation.ifNoneMatch) codes400.push('invalid_precondition_header');
  responses['400'] = errorResponse(
    400,
    [businessAlternative(codes400), ...(errors.plain400 ? [plainAlternative(errors.plain400.examples, false)] : [])],
    errors.plain400 ? [errors.plain400.description] : [],
  );
  responses['401'] = errorResponse(401, [businessAlternative(UNAUTHENTICATED)]);
  responses['403'] = errorResponse(403, [
    businessAlternative([...FORBIDDEN, ...(errors.seller ? (['insufficient_capability'] as const) : [])]),
  ]);
  if (errors.notFound)
    responses['404'] = errorResponse(
      404,
      [plainAlternative([errors.notFound], true)],
      ['Also for an id that is not a UUID, and for a record of another organization.'],
    );
  const codes409: ErrorCode[] = [...(post ? (['idempotency_key_in_use'] as const) : []), ...(own[409] ?? [])];
  if (codes409.length) responses['409'] = errorResponse(409, [businessAlternative(codes409)]);
  if (operation.ifMatch) responses['412'] = errorResponse(412, [businessAlternative(['precondition_failed'])]);
  if (operation.jsonBody) {
    responses['413'] = errorResponse(413, [businessAlternative(['payload_too_large'])]);
    responses['415'] = errorResponse(415, [businessAlternative(['unsupported_media_type'])]);
  }
  for (const [status, { name }] of Object.entries(HTTP_LAYER_REFUSALS)) responses[status] = { $ref: `#/components/responses/${name}` };
  const codes422: ErrorCode[] = [...(own[422] ?? []), ...(post ? (['idempotency_key_reused'] as const) : [])];
  responses['422'] = errorResponse(422, [validationAlternative, ...(codes422.length ? [businessAlternative(codes422)] : [])]);
  responses['429'] = errorResponse(429, [businessAlternative(['too_many_requests'])]);
  responses['500'] = errorResponse(
    500,
    [plainAlternative(['Internal Server Error'], true)],
    ['Never carries a stack trace; quote x-request-id.'],
  );
  // Any other status a route declares (410 cursor_expired, 502 storage_unavailable...): its codes alone.
  for (const [status, codes] of Object.entries(own)) {
    if (!responses[status] && codes?.length) responses[status] = errorResponse(Number(status), [businessAlternative(codes)]);
  }
  responses['503'] = errorResponse(503, [businessAlternative(['service_unavailable'])]);
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/**
 * The HTTP layer's refusals, the same for every operation: one response component each, referenced
 * by every operation (inline, they would add an eighth to the document). They come before the key
 * is known, so they carry x-request-id and no rate-limit fields.
 */
const HTTP_LAYER_REFUSALS: Record<string, { name: string; code: ErrorCode }> = {
  '408': { name: 'RequestTimeout', code: 'request_timeout' },
  '414': { name: 'UriTooLong', code: 'uri_too_long' },
  '431': { name: 'RequestHeaderFieldsTooLarge', code: 'request_header_fields_too_large' },
};

function httpLayerResponses(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(HTTP_LAYER_REFUSALS).map(([status, { name, code }]) => {
      const response = errorResponse(Number(status), [businessAlternative([code])]);
      return [name, { ...response, headers: { 'x-request-id': headerRef('XRequestId') } }];
    }),
  );
}

const headerRef = (name: keyof typeof COMMON_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT = {
  'RateLimit-Limit': headerRef('RateLimitLimit'),
  'RateLimit-Remaining': headerRef('RateLimitRemaining'),
  'RateLimit-Reset': headerRef('RateLimitReset'),
  'RateLimit-Policy': headerRef('RateLimitPolicy'),
  RateLimit: headerRef('RateLimit'),
};

// --- schema walking: documentation-only keywords and named components

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const FORMAT_LENGTHS: Record<string, number> = { uuid: 36, date: 10, 'date-time': 35 };

/** JSON with sorted keys: two spellings of one schema compare equal. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) => (isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));

/** Merges every `x-doc-only` annotation into the schema that carries it. */
function applyDocOnly(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) applyDocOnly(item);
    return;
  }
  if (!isObject(node)) return;
  // The pydantic error hint is for the run-time 422 only.
  delete node[PYDANTIC];
  // A format fixes the length; the document says so, for the tools that check lengths only.
  if (
    (node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'))) &&
    node.maxLength === undefined &&
    typeof node.format === 'string' &&
    node.format in FORMAT_LENGTHS
  )
    node.maxLength = FORMAT_LENGTHS[node.format];
  const extra = node[DOC_ONLY];
  if (isObject(extra)) {
    delete node[DOC_ONLY];
    Object.assign(node, extra);
  }
  for (const value of Object.values(node)) applyDocOnly(value);
}

/**
 * Moves every schema with a `title` into components.schemas and leaves a $ref in its place (a
 * nullable one becomes `oneOf: [$ref, null]`). Two different schemas under one title are a bug.
 */
function hoistTitled(node: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((n) => hoistTitled(n, components));
  if (!isObject(node)) return node;
  const walked: Json = {};
  for (const [key, value] of Object.entries(node))
    walked[key] = key === 'examples' || key === 'example' ? value : hoistTitled(value, components);
  const title = walked.title;
  if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]+$/.test(title)) return walked;
  const { title: _t, ...schema } = walked;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
  const nullable = types?.includes('null') ?? false;
  if (nullable) {
    const rest = types?.filter((t) => t !== 'null') ?? [];
    schema.type = rest.length === 1 ? rest[0] : rest;
  }
  const known = components[title];
  if (known && canonical(known) !== canonical(schema)) throw new Error(`Two different schemas are titled ${title}`);
  components[title] = schema;
  return nullable ? { oneOf: [schemaRef(title), { type: 'null' }] } : schemaRef(title);
}

/** The partner document: public paths only, each operation completed as the header comment says. */
export function publicDocument(served: Json): Json {
  const full = structuredClone(served);
  const paths = Object.fromEntries(
    Object.entries((full.paths ?? {}) as Record<string, Json>).filter(([path]) => path.startsWith('/public/v1/')),
  );
  const components = (full.components ?? {}) as Json;
  const schemas = { ...((components.schemas ?? {}) as Record<string, Json>) };
  applyDocOnly(paths);
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item) as [string, Json][]) {
      const declared = (operation['x-errors'] ?? {}) as RouteErrors;
      delete operation['x-errors'];
      if (operation['x-body-optional'] === true && isObject(operation.requestBody)) operation.requestBody.required = false;
      delete operation['x-body-optional'];
      const parameters = (operation.parameters ?? []) as Json[];
      for (const parameter of parameters) {
        const schema = parameter.schema as Json | undefined;
        // Ajv fills in a default before anything reads the value: a defaulted parameter is optional.
        if (schema && 'default' in schema) parameter.required = false;
        if (parameter.in === 'header' && schema?.type === 'string' && schema.maxLength === undefined)
          schema.maxLength = HEADER_PARAMETER_MAX_LENGTH;
      }
      if (method === 'post') parameters.push(IDEMPOTENCY_KEY);
      if (parameters.length) operation.parameters = parameters;
      const header = (name: string) => parameters.some((p) => p.in === 'header' && String(p.name).toLowerCase() === name);
      const ifMatch = header('if-match');
      const ifNoneMatch = header('if-none-match');
      const body = operation.requestBody as Json | undefined;
      const jsonBody = isObject(body?.content) && 'application/json' in body.content;
      operation.security = [{ apiKey: [], organization: [] }];
      const responses = {
        ...((operation.responses ?? {}) as Record<string, Json>),
        ...errorResponses(declared, { method, jsonBody, ifMatch, ifNoneMatch }),
      };
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
      for (const [status, response] of Object.entries(responses)) {
        if ('$ref' in response) continue; // a shared component carries its own headers
        // 401 and the 400 of a malformed X-Organization-Id come before the key is known: no rate-limit fields.
        const counted = status !== '401';
        response.headers = {
          ...((response.headers ?? {}) as Json),
          'x-request-id': headerRef('XRequestId'),
          ...(counted ? RATE_LIMIT : {}),
          // 409 idempotency_key_in_use (POSTs) says when to retry; a PATCH's 409 suspended_by_operator does not.
          ...(status === '429' || status === '503' || (status === '409' && method === 'post')
            ? { 'Retry-After': headerRef('RetryAfter') }
            : {}),
          ...(method === 'post' && status.startsWith('2') ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
        };
      }
    }
  }
  const hoisted = hoistTitled(paths, schemas) as Json;
  return {
    openapi: full.openapi,
    info: full.info,
    ...(full.servers ? { servers: full.servers } : {}),
    ...(full.tags ? { tags: full.tags } : {}),
    security: full.security,
    paths: hoisted,
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      headers: { ...((components.headers ?? {}) as Json), ...COMMON_HEADERS },
      responses: httpLayerResponses(),
    },
  };
}

/** What each tag groups, where guides.ts (the docs page's prose) does not describe it yet. */
const TAG_FALLBACKS: Record<string, string> = {
  teardowns: 'Aircraft and engine part-outs, their lifecycle, documents, images and the four named document slots.',
  listings: 'Sales / lease / exchange listings of aircraft, engines and APUs, their documents and images.',
};

/** The document's tags: the guides' own first, then a fallback for any tag the routes use that they lack. */
export function documentTags(guides: { name: string; description: string }[]): { name: string; description: string }[] {
  const named = new Set(guides.map((t) => t.name));
  return [
    ...guides,
    ...Object.entries(TAG_FALLBACKS)
      .filter(([name]) => !named.has(name))
      .map(([name, description]) => ({ name, description })),
  ];
}
