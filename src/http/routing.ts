// Unknown paths answer 404 and known paths with the wrong method 405, as FastAPI does; Fastify
// alone would answer 404 to both. Every route is recorded as it is added, to tell the two apart.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-handler.js';
import { ApiError, methodNotAllowed, routeNotFound } from './errors.js';
import { setAnswerHeaders } from './security-headers.js';

/** Records the routes as they are added; answers the refusal of a request no route matched (404 / 405). */
export function installRouteFallbacks(app: FastifyInstance): (request: FastifyRequest) => ApiError | undefined {
  const patterns: { regex: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url === '*' || route.url.endsWith('/*')) return;
    const source = route.url
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const regex = new RegExp(`^${source}/?$`);
    const methods = ([] as string[]).concat(route.method);
    const existing = patterns.find((p) => p.regex.source === regex.source);
    if (existing) for (const m of methods) existing.methods.add(m);
    else patterns.push({ regex, methods: new Set(methods) });
  });

  const fallback = (request: FastifyRequest) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set<string>();
    for (const p of patterns) if (p.regex.test(path)) for (const m of p.methods) allowed.add(m);
    if (allowed.size > 0 && !allowed.has(request.method)) return methodNotAllowed([...allowed].sort());
    return routeNotFound();
  };
  app.setNotFoundHandler(async (request) => {
    throw fallback(request);
  });
  // The app's onRequest hook answers with it before the body is read: a QUERY (a method with a
  // body) or a POST of an odd media type to a path that has no such route would otherwise answer
  // the body parser's 400 / 415. (One hook with the answer headers: each hook costs every request.)
  return (request: FastifyRequest): ApiError | undefined => (request.is404 ? fallback(request) : undefined);
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's x-request-id when it is safe to echo, else a fresh UUID. */
export function requestIdFrom(header: string | string[] | undefined, fresh: () => string): string {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : fresh();
}

export const malformedUrl = () =>
  new ApiError(400, { error_code: 'bad_request', message: 'The URL is malformed (invalid percent-encoding).' });
export const uriTooLong = () => new ApiError(414, { error_code: 'uri_too_long', message: 'A path segment of the URL is too long.' });

/**
 * Failures the router meets before any route or hook runs (a malformed percent-escape, an
 * over-long path parameter). Fastify would answer them in its own shape and without a request id.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  setAnswerHeaders(request, reply);
  return sendError(reply, error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? uriTooLong() : malformedUrl());
}
