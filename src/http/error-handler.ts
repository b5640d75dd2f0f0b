// Renders every failure in one of the spec's three shapes. Unexpected errors become a bare 500
// whose log line carries the stack and the request id, and whose body carries neither.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, internalError, payloadTooLarge, schemaError } from './errors.js';
import { toSchemaItems } from './validation.js';

function send(reply: FastifyReply, error: ApiError) {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // Error bodies bypass the routes' success schemas: they are serialised as they are.
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send({ detail: error.detail });
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

export function installErrorHandler(app: FastifyInstance, maxJsonBytes: number) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = fromFrameworkError(error, maxJsonBytes);
    if (known) {
      if (known.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return send(reply, known);
    }
    request.log.error({ err: error }, 'unexpected error');
    return send(reply, internalError());
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
    } catch (err) {
      const message = err instanceof Error ? err.message : 'Invalid JSON';
      const position = /position (\d+)/.exec(message)?.[1];
      done(
        schemaError([
          {
            type: 'json_invalid',
            loc: ['body', position ? Number(position) : 0],
            msg: 'JSON decode error',
            input: {},
            ctx: { error: message.replace(/ in JSON at position \d+.*$/, '') },
          },
        ]),
        undefined,
      );
    }
  });
}
