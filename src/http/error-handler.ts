// Renders every failure in one of the spec's three shapes. Unexpected errors become a bare 500
// whose log line carries the stack and the request id, and whose body carries neither.
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DependencyHealth } from '../observability/dependencies.js';
import { ApiError, internalError, payloadTooLarge, schemaError } from './errors.js';
import { oversizedObjectItems } from './json-members.js';
import { findJsonSyntaxError } from './json-syntax.js';
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

/** How much of a refused body is read (and thrown away) at most, and for how long, before the answer. */
const DISCARD_BYTES = 64 * 1024 * 1024;
const DISCARD_MS = 10_000;

/**
 * Reads and throws away the rest of a request body. When Fastify refuses a body in mid-stream
 * (over the limit) it closes the connection after the answer; closing with the client's bytes
 * still unread makes the kernel send a TCP reset, which can wipe the 413 before the client reads
 * it. Within a bound and a deadline the rest is read first, so the close is a clean one.
 */
export function discardBody(raw: IncomingMessage, maxBytes = DISCARD_BYTES, ms = DISCARD_MS): Promise<void> {
  if (raw.complete || raw.destroyed || raw.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', finish);
      raw.off('close', finish);
      raw.off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish();
    };
    const timer = setTimeout(finish, ms);
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('close', finish);
    raw.once('error', finish);
    raw.resume();
  });
}

export function installErrorHandler(app: FastifyInstance, maxJsonBytes: number, health?: DependencyHealth) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = fromFrameworkError(error, maxJsonBytes);
    if (known) {
      if (known.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      if (known.statusCode === 413 && !request.raw.complete) {
        reply.header('connection', 'close');
        return discardBody(request.raw).then(() => sendError(reply, known));
      }
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
/** The keys a route's body schema declares (TypeBox objects are plain JSON Schema). */
function bodyKeys(schema: unknown): Set<string> | undefined {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? new Set(Object.keys(properties)) : undefined;
}

export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(\s*;.*)?$/i, { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    const oversized = oversizedObjectItems(text, bodyKeys(req.routeOptions.schema?.body));
    if (oversized) return done(schemaError(oversized), undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const found = findJsonSyntaxError(text) ?? { pos: 0, msg: 'Expecting value' };
      done(schemaError([{ type: 'json_invalid', loc: ['body', found.pos], msg: 'JSON decode error', input: {}, ctx: { error: found.msg } }]), undefined);
    }
  });
}
