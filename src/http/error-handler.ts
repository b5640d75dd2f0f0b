// Renders every failure in one of the spec's three shapes. Unexpected errors become a bare 500
// whose log line carries the stack and the request id, and whose body carries neither.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, internalError, payloadTooLarge, schemaError } from './errors.js';
import { findJsonSyntaxError } from './json-syntax.js';
import type { DependencyHealth } from '../observability/dependencies.js';
import { outageError } from './outages.js';
import { toSchemaItems } from './validation.js';

/**
 * Error bodies bypass the routes' success schemas: they are serialised as they are. An echoed
 * value can be too deeply nested to stringify (a 10 MB body of brackets); the body then goes out
 * without the echoed values rather than as a 500.
 */
export function errorBody(error: ApiError): string {
  try {
    return JSON.stringify({ detail: error.detail });
  } catch {
    const { detail } = error;
    if (typeof detail === 'string') return JSON.stringify({ detail });
    if (Array.isArray(detail)) return JSON.stringify({ detail: detail.map(({ type, loc, msg }) => ({ type, loc, msg, input: null })) });
    return JSON.stringify({ detail: { error_code: detail.error_code, message: detail.message } });
  }
}

export function sendError(reply: FastifyReply, error: ApiError) {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(errorBody(error));
}

/** Translates framework errors (parsing, validation, limits) into our ApiError; undefined if unexpected. */
export function fromFrameworkError(error: FastifyError, maxJsonBytes: number): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    return schemaError(toSchemaItems(error.validation as never, error.validationContext ?? 'body'));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(maxJsonBytes);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return schemaError([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, {
        error_code: 'unsupported_media_type',
        message: 'Send application/json bodies (multipart/form-data on upload endpoints).',
      });
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, { error_code: 'bad_request', message: error.message });
  }
  return undefined;
}

export function installErrorHandler(app: FastifyInstance, maxJsonBytes: number, health?: DependencyHealth) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = fromFrameworkError(error, maxJsonBytes);
    if (known) {
      if (known.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(reply, known);
    }
    // A dependency outage: logged once per outage by `health`, answered 503 with Retry-After.
    const outage = outageError(error, health, request.log);
    if (outage) return sendError(reply, outage);
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, internalError());
  });
}

/**
 * JSON bodies: our own parser so that malformed JSON answers pydantic's `json_invalid` with the
 * character offset, and a body that is not an object is still handed to validation to report.
 */
export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(\s*;.*)?$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const found = findJsonSyntaxError(text) ?? { pos: 0, msg: 'Expecting value' };
      done(schemaError([{ type: 'json_invalid', loc: ['body', found.pos], msg: 'JSON decode error', input: {}, ctx: { error: found.msg } }]), undefined);
    }
  });
}
