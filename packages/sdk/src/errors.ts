// Typed errors. Every answer that is not a success becomes an ApiError subclass chosen from the
// status and the body's shape (the contract's three shapes: business `{detail: {error_code,
// message, ...}}`, schema `{detail: [{type, loc, msg, input}]}`, plain `{detail: "..."}`).
// Failures without an answer (connection refused or reset, per-attempt timeout) are NetworkErrors.

/** Base of every error this SDK throws on purpose. */
export class PartnerSdkError extends Error {
  override name = 'PartnerSdkError';
}

/** One item of a 422 schema error (pydantic form). */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** The `detail` object of a business error: `error_code`, `message` and the code's extra fields. */
export interface BusinessDetail {
  error_code: string;
  message: string;
  [field: string]: unknown;
}

export interface ApiErrorInit {
  status: number;
  /** The `x-request-id` of the answer: quote it when you contact support. */
  requestId: string | undefined;
  /** The parsed JSON body, or its text when it is not JSON. */
  body: unknown;
  headers: Headers;
}

/** The service answered with a non-success status. */
export class ApiError extends PartnerSdkError {
  override name = 'ApiError';
  readonly status: number;
  readonly requestId: string | undefined;
  readonly body: unknown;
  readonly headers: Headers;
  /** The business `error_code`, when the body has one. */
  readonly errorCode: string | undefined;

  constructor(init: ApiErrorInit, message: string, errorCode?: string) {
    super(`${init.status}${errorCode ? ` ${errorCode}` : ''}: ${message}${init.requestId ? ` (x-request-id ${init.requestId})` : ''}`);
    this.status = init.status;
    this.requestId = init.requestId;
    this.body = init.body;
    this.headers = init.headers;
    this.errorCode = errorCode;
  }
}

/** `{detail: {error_code, message, ...}}`: a rule of the service refused the request. */
export class BusinessError extends ApiError {
  override name = 'BusinessError';
  /** The whole `detail` object, extra fields included (e.g. `valid_values` of `unknown_vocabulary`). */
  readonly detail: BusinessDetail;
  override readonly errorCode: string;

  constructor(init: ApiErrorInit, detail: BusinessDetail) {
    super(init, detail.message, detail.error_code);
    this.detail = detail;
    this.errorCode = detail.error_code;
  }
}

/** 401: the key is missing, malformed, unknown, revoked or expired. */
export class Unauthorized extends BusinessError {
  override name = 'Unauthorized';
}

/** 403: the key may not do this (organization mismatch, subscription, capability...). */
export class Forbidden extends BusinessError {
  override name = 'Forbidden';
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date), if any. */
function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** 429 `too_many_requests`, after the SDK's retries (or its time budget) ran out. */
export class RateLimited extends BusinessError {
  override name = 'RateLimited';
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: ApiErrorInit, detail: BusinessDetail) {
    super(init, detail);
    this.retryAfterSeconds = retryAfterSeconds(init.headers);
  }
}

/** 503: a dependency of the service is down; retried by the SDK until its budget ran out. */
export class ServiceUnavailable extends ApiError {
  override name = 'ServiceUnavailable';
  readonly retryAfterSeconds: number | undefined;
  constructor(init: ApiErrorInit, message: string, errorCode?: string) {
    super(init, message, errorCode);
    this.retryAfterSeconds = retryAfterSeconds(init.headers);
  }
}

/** 412 `precondition_failed`: the record changed since the ETag sent as `ifMatch`. */
export class PreconditionFailed extends BusinessError {
  override name = 'PreconditionFailed';
  /** The record's ETag now: read it again, merge, and retry with this one. */
  readonly currentEtag: string | undefined;
  constructor(init: ApiErrorInit, detail: BusinessDetail) {
    super(init, detail);
    const fromBody = detail.current_etag;
    this.currentEtag = typeof fromBody === 'string' ? fromBody : (init.headers.get('etag') ?? undefined);
  }
}

/** 410 `cursor_expired`: an event-feed cursor older than the feed's retention. */
export class CursorExpired extends BusinessError {
  override name = 'CursorExpired';
}

/** 422 with the schema shape: every problem of the request, each with its location. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  readonly issues: ValidationIssue[];
  constructor(init: ApiErrorInit, issues: ValidationIssue[]) {
    super(init, issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ') || 'Validation failed');
    this.issues = issues;
  }
}

/** 404: the record does not exist or belongs to another organization (the service does not say which). */
export class NotFound extends ApiError {
  override name = 'NotFound';
}

/** No answer: the connection failed, or the attempt outlived `timeoutMs`; after the SDK's retries. */
export class NetworkError extends PartnerSdkError {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An attempt got no answer within `timeoutMs`. */
export class TimeoutError extends NetworkError {
  override name = 'TimeoutError';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isBusinessDetail(value: unknown): value is BusinessDetail {
  return isRecord(value) && typeof value.error_code === 'string' && typeof value.message === 'string';
}

function isIssue(value: unknown): value is ValidationIssue {
  return isRecord(value) && typeof value.type === 'string' && Array.isArray(value.loc) && typeof value.msg === 'string';
}

/** The typed error of a non-success answer whose body was already read (parsed JSON, or text). */
export function errorFromResponse(response: Response, body: unknown): ApiError {
  const init: ApiErrorInit = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    body,
    headers: response.headers,
  };
  const detail = isRecord(body) ? body.detail : undefined;
  if (isBusinessDetail(detail)) {
    switch (response.status) {
      case 401:
        return new Unauthorized(init, detail);
      case 403:
        return new Forbidden(init, detail);
      case 404:
        return new NotFound(init, detail.message, detail.error_code);
      case 410:
        return detail.error_code === 'cursor_expired' ? new CursorExpired(init, detail) : new BusinessError(init, detail);
      case 412:
        return new PreconditionFailed(init, detail);
      case 429:
        return new RateLimited(init, detail);
      case 503:
        return new ServiceUnavailable(init, detail.message, detail.error_code);
      default:
        return new BusinessError(init, detail);
    }
  }
  if (Array.isArray(detail) && detail.every(isIssue)) return new ValidationError(init, detail);
  const text =
    typeof detail === 'string'
      ? detail
      : typeof body === 'string' && body !== ''
        ? body.slice(0, 200)
        : response.statusText || 'Request failed';
  if (response.status === 404) return new NotFound(init, text);
  if (response.status === 503) return new ServiceUnavailable(init, text);
  return new ApiError(init, text);
}
