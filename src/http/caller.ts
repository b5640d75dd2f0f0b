// Who is calling, as the routes behind the API-key chain see it: the authenticated key and its
// minter, and the audit actor their changes are recorded under.
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../audit/record.js';
import type { RequestAuth } from './auth.js';

/** The authenticated caller; the chain has run on every public route, so this never throws there. */
export function callerOf(request: FastifyRequest): RequestAuth {
  const auth = request.auth;
  if (!auth) throw new Error(`${request.routeOptions.url} reached without authentication`);
  return auth;
}

/** The audit actor of an authenticated request. */
export function apiActor(request: FastifyRequest): Actor & { kind: 'api' } {
  const auth = callerOf(request);
  return { kind: 'api', keyId: auth.keyId, keyPrefix: auth.keyPrefix, email: auth.email, userId: auth.userId, requestId: request.id };
}
