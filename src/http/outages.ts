// A request that fails because a dependency is down answers 503 in the business shape with
// Retry-After, fast, and the outage is logged once (observability/dependencies.ts), not per request.
import type { FastifyBaseLogger } from 'fastify';
import { databaseFailure } from '../db/unavailable.js';
import type { DependencyHealth } from '../observability/dependencies.js';
import { ApiError } from './errors.js';

/** Seconds a client should wait before retrying: about what a PostgreSQL failover takes. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export const serviceUnavailable = (dependency: string, retryAfterSeconds: number) =>
  new ApiError(
    503,
    {
      error_code: 'service_unavailable',
      message: `The service is temporarily unavailable (${dependency}). Retry in ${retryAfterSeconds} seconds.`,
      dependency,
      retry_after: retryAfterSeconds,
    },
    { 'retry-after': String(retryAfterSeconds) },
  );

/**
 * The 503 for an error that means the database is unavailable, or undefined for any other error.
 * An unreachable database is an outage, logged once by `health`; a statement cut short by
 * DB_STATEMENT_TIMEOUT_MS concerns that request alone and is logged with it.
 */
export function outageError(err: unknown, health: DependencyHealth | undefined, log: FastifyBaseLogger): ApiError | undefined {
  const failure = databaseFailure(err);
  if (!failure) return undefined;
  if (failure === 'unreachable') health?.down('database', err);
  else log.warn({ error: err instanceof Error ? err.message : String(err) }, 'database statement timed out');
  return serviceUnavailable('database', DATABASE_RETRY_AFTER_SECONDS);
}
