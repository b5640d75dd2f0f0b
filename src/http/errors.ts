// One error type for everything the API answers on purpose, built by small named factories.
// The error handler renders the spec's three shapes from it; anything else becomes a bare 500.

export type SchemaErrorItem = {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
};

type Detail =
  | string // plain-string detail (404s, transition refusals)
  | SchemaErrorItem[] // 422 schema shape
  | ({ error_code: string; message: string } & Record<string, unknown>); // business shape

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: Detail,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : Array.isArray(detail) ? 'Validation error' : detail.message);
    this.name = 'ApiError';
  }

  get errorCode(): string | undefined {
    return typeof this.detail === 'object' && !Array.isArray(this.detail) ? this.detail.error_code : undefined;
  }
}

const business = (status: number, error_code: string, message: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, { error_code, message, ...extra });

// --- routing
export const routeNotFound = () => new ApiError(404, 'Not Found');
export const methodNotAllowed = (allow: string[]) => new ApiError(405, 'Method Not Allowed', { allow: allow.join(', ') });

// --- authentication chain (spec: Authentication)
export const missingOrMalformedAuthorization = () =>
  business(401, 'missing_or_malformed_authorization', 'Authorization header must be "Bearer svc_live_<API_KEY>".');
export const invalidOrganizationHeader = () =>
  business(400, 'invalid_organization_header', 'X-Organization-Id header is missing or is not a UUID.');
export const invalidApiKey = () => business(401, 'invalid_api_key', 'The API key is not valid.');
export const apiKeyExpired = () => business(401, 'api_key_expired', 'The API key has expired.');
export const organizationMismatch = () =>
  business(403, 'organization_mismatch', 'The API key does not belong to the organization in X-Organization-Id.');
export const orgInactive = () => business(403, 'org_inactive', 'The organization is inactive.');
export const orgChurned = () => business(403, 'org_churned', 'The organization has churned.');
export const subscriptionRequired = (subscription_status: string) =>
  business(403, 'subscription_required', 'An active subscription is required to use the API.', { subscription_status });
export const apiAccessDisabled = () => business(403, 'api_access_disabled', 'API access is turned off for this organization.');
export const apiKeyCreatorRevoked = () =>
  business(403, 'api_key_creator_revoked', 'The user who minted this API key is no longer active in the organization.');
export const insufficientCapability = (capability: string) =>
  business(403, 'insufficient_capability', `This operation requires the '${capability}' capability.`, { required: capability });
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    { error_code: 'too_many_requests', message: `Rate limit exceeded. Retry in ${retryAfterSeconds} seconds.`, retry_after: retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
export const adminUnauthorized = () => business(401, 'unauthorized', 'A valid admin token is required.');

// --- Idempotency-Key (issue 10)
export const invalidIdempotencyKey = () =>
  business(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 printable ASCII characters, bare or as a quoted string.');
export const idempotencyKeyReused = () =>
  business(422, 'idempotency_key_reused', 'This Idempotency-Key was used with another request; use a new key for a new request.');
export const idempotencyKeyInUse = () =>
  new ApiError(
    409,
    { error_code: 'idempotency_key_in_use', message: 'A request with this Idempotency-Key is still running; retry shortly.' },
    { 'retry-after': '1' },
  );

// --- request bodies
export const payloadTooLarge = (limit: number) =>
  business(413, 'payload_too_large', `The request body exceeds the limit of ${limit} bytes.`, { limit });
export const schemaError = (items: SchemaErrorItem[]) => new ApiError(422, capItems(items));

/** At most this many items in one 422; one more item then says how many were left out. */
export const MAX_ERROR_ITEMS = 100;
export const TOO_MANY_ERRORS = 'too_many_errors';

export const tooManyErrorsItem = (part: string, omitted: number): SchemaErrorItem => ({
  type: TOO_MANY_ERRORS,
  loc: [part],
  msg: `${omitted} more error${omitted === 1 ? ' was' : 's were'} left out: at most ${MAX_ERROR_ITEMS} are reported at once`,
  input: null,
  ctx: { omitted, limit: MAX_ERROR_ITEMS },
});

/**
 * Keeps at most MAX_ERROR_ITEMS items, in their order, then one too_many_errors item counting
 * the rest (earlier too_many_errors items are merged into it). When cutting, the merged `missing`
 * items come first (one names every missing field of an object), then problems of known fields,
 * then unknown keys: those say the least about what to fix.
 */
export function capItems(items: SchemaErrorItem[]): SchemaErrorItem[] {
  let omitted = 0;
  const rest: SchemaErrorItem[] = [];
  for (const item of items) {
    if (item.type === TOO_MANY_ERRORS) omitted += Number(item.ctx?.omitted ?? 0);
    else rest.push(item);
  }
  let kept = rest;
  if (rest.length > MAX_ERROR_ITEMS) {
    const rank = (i: SchemaErrorItem) => (i.type === 'missing' ? 0 : i.type === 'extra_forbidden' ? 2 : 1);
    const keep = new Set([...rest].sort((a, b) => rank(a) - rank(b)).slice(0, MAX_ERROR_ITEMS));
    kept = rest.filter((i) => keep.has(i));
    omitted += rest.length - kept.length;
  }
  if (omitted === 0) return kept;
  const part = String(items.find((i) => i.type === TOO_MANY_ERRORS || !kept.includes(i))?.loc[0] ?? 'body');
  return [...kept, tooManyErrorsItem(part, omitted)];
}
export const invalidStatus = (got: unknown, allowed: readonly string[]) =>
  business(422, 'invalid_status', `status must be one of: ${allowed.join(', ')}.`, { got, allowed });
export const vocabRequired = (field: string) =>
  business(422, 'vocab_required', `${field} is required for this asset type.`, { field });
export const unknownVocabulary = (field: string, value: string, valid_values: string[]) =>
  business(400, 'unknown_vocabulary', `Unknown ${field} '${value}'.`, { field, value, valid_values });
export const invalidAudience = (got: unknown[], allowed: readonly string[]) =>
  business(422, 'invalid_audience', `audience values must be among: ${allowed.join(', ')}.`, { got, allowed });

// --- resources
export const teardownNotFound = () => new ApiError(404, 'Teardown not found');
export const listingNotFound = () => new ApiError(404, 'Listing not found');
export const notFound = (what: string) => business(404, 'not_found', `${what} not found.`);
export const conflict = (message: string) => business(409, 'conflict', message);
export const transitionRefused = (message: string) => new ApiError(400, message);
/** A seller tried to move an operator-suspended listing to a status the hold forbids (decisions.md section 9). */
export const suspendedByOperator = (status: string, allowed: readonly string[]) =>
  business(
    409,
    'suspended_by_operator',
    `This listing was suspended by an operator. Until an operator lifts the suspension its status may only be set to ${allowed.join(' or ')}.`,
    { status, allowed },
  );

// --- files
export const fileTooLarge = (limit: number) =>
  business(400, 'file_too_large', `The file exceeds the limit of ${limit} bytes.`, { limit });
export const invalidContentType = (got: string, allowed: readonly string[]) =>
  business(400, 'invalid_content_type', `Content type '${got}' is not accepted here.`, { got, allowed });
export const badUpload = (message: string) => new ApiError(400, message);
export const storageUnavailable = () =>
  business(502, 'storage_unavailable', 'Object storage is unavailable. Nothing was stored; retry later.');
// Serving stored files (plain-string detail, like the other protocol-level answers).
export const rangeNotSatisfiable = (contentRange: string) => new ApiError(416, 'Range Not Satisfiable', { 'content-range': contentRange });
export const preconditionFailed = () => new ApiError(412, 'Precondition Failed');

export const internalError = () => new ApiError(500, 'Internal Server Error');
// --- files: the bytes contradict the declared type
export const contentTypeMismatch = (declared: string, detected: string | null, allowed: readonly string[]) =>
  business(400, 'invalid_content_type', `The file's content does not match its declared type '${declared}'.`, { got: declared, detected, allowed });

/** The event feed's cursor points before events the retention purge removed (issue 11). */
export const cursorExpired = () =>
  new ApiError(410, {
    error_code: 'cursor_expired',
    message:
      'Events after this cursor were purged by retention (EVENT_RETENTION_DAYS). Resynchronise from the list endpoints, then follow the feed from its start (no after).',
  });

/** A webhook URL the SSRF rules refuse (issue 11): not https, credentials, a refused address... */
export const invalidWebhookUrl = (message: string) => new ApiError(422, { error_code: 'invalid_webhook_url', message });

/** The organization already has `limit` webhook endpoints (enforced in SQL by slots, webhooks/repository.ts). */
export const tooManyWebhookEndpoints = (limit: number) =>
  new ApiError(422, {
    error_code: 'too_many_webhook_endpoints',
    message: `An organization can have at most ${limit} webhook endpoints; delete one before adding another.`,
    limit,
  });
