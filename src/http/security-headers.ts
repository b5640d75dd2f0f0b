// Headers every answer carries: no MIME sniffing anywhere, and no caching of what a credential
// unlocked (the partner and admin APIs, errors included). The OpenAPI document is public and may be cached.
import type { FastifyReply, FastifyRequest } from 'fastify';

const PRIVATE = /^\/(?:public|admin)\/v1(?:[/?]|$)/;
const PUBLIC_DOCUMENT = /^\/public\/v1\/openapi\.json\/?(?:\?|$)/;

/** Whether an answer to `url` must not be stored by any cache. */
export const isPrivatePath = (url: string) => PRIVATE.test(url) && !PUBLIC_DOCUMENT.test(url);

/** An onRequest hook: set first, so every answer of the request, refusals included, keeps them. */
export async function securityHeaders(request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-content-type-options', 'nosniff');
  if (isPrivatePath(request.url)) reply.header('cache-control', 'no-store');
}
