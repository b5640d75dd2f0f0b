// Headers every answer carries: no MIME sniffing anywhere, and no caching of what a credential
// unlocked (the partner and admin APIs, errors included). The OpenAPI document is public and may be cached.
import type { FastifyReply, FastifyRequest } from 'fastify';

const PRIVATE = /^\/(?:public|admin)\/v1(?:[/?]|$)/;
const PUBLIC_DOCUMENT = /^\/public\/v1\/openapi\.json\/?(?:\?|$)/;

/** Whether an answer to `url` must not be stored by any cache. */
export const isPrivatePath = (url: string) => PRIVATE.test(url) && !PUBLIC_DOCUMENT.test(url);

/**
 * The headers every answer carries: its request id, no sniffing, no caching of private paths. Set
 * first (an onRequest hook, and the router's own error handler), so refusals keep them too.
 */
export function setAnswerHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (isPrivatePath(request.url)) reply.header('cache-control', 'no-store');
}
