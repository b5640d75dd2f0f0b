// Unauthenticated operational routes: liveness, readiness, metrics and the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../db/database.js';

const READINESS_DEADLINE_MS = 800;

/** 'ok' when `check` resolves within the deadline, else 'unavailable' (the check is left to finish on its own). */
async function probe(check: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'unavailable'>((resolve) => {
    timer = setTimeout(() => resolve('unavailable'), READINESS_DEADLINE_MS);
  });
  try {
    return await Promise.race([check().then(() => 'ok' as const, () => 'unavailable' as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function systemRoutes(app: FastifyInstance) {
  const hidden = { hide: true };

  app.get('/healthz', { schema: hidden }, async () => ({ status: 'ok' }));

  // Answers within READINESS_DEADLINE_MS whatever is down. The database and the object store decide
  // readiness; Redis and the auth change channel are reported but do not: without them the service
  // still answers right (local rate-limit windows, uncached key lookups).
  app.get('/readyz', { schema: hidden }, async (_request, reply) => {
    const { ctx } = app;
    if (ctx.lifecycle.draining) return reply.code(503).send({ status: 'draining', checks: {} });
    const [database, storage] = await Promise.all([
      probe(() => pingDatabase(ctx.db)),
      probe(() => ctx.store.ping(READINESS_DEADLINE_MS)),
    ]);
    if (database === 'ok') ctx.health.up('database');
    if (storage === 'ok') ctx.health.up('storage');
    const checks: Record<string, string> = {
      database,
      storage,
      redis: ctx.config.redisUrl ? (ctx.health.isUp('redis') ? 'ok' : 'unavailable') : 'not_configured',
      auth_cache: ctx.authListener ? (ctx.authListener.connected ? 'live' : 'off') : ctx.config.authCacheSeconds > 0 ? 'local' : 'disabled',
    };
    const ready = database === 'ok' && storage === 'ok';
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });

  app.get('/metrics', { schema: hidden }, async (_request, reply) => {
    const { registry } = app.ctx.metrics;
    return reply.type(registry.contentType).send(await registry.metrics());
  });

  // The partner document (built by @fastify/swagger through openapi.ts publicDocument, so the /docs
  // page shows the same one): partner endpoints only, with their common headers.
  app.get('/public/v1/openapi.json', { schema: hidden }, async () => app.swagger());
}
