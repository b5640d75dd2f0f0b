// Operator authentication: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { adminUnauthorized } from '../http/errors.js';
import type { Metrics } from '../observability/metrics.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function adminAuthHook(token: string, metrics: Metrics) {
  // Comparing fixed-length digests keeps the comparison constant-time whatever the input length.
  const expected = digest(token);
  return async function requireAdmin(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
    const presented = digest(match?.[1] ?? '');
    if (!match || !timingSafeEqual(presented, expected)) {
      metrics.authFailures.inc({ code: 'admin_unauthorized' });
      throw adminUnauthorized();
    }
  };
}
