// Unauthenticated operational routes: liveness, readiness, metrics and the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

export async function systemRoutes(app: FastifyInstance) {
  const hidden = { hide: true };

  app.get('/healthz', { schema: hidden }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: hidden }, async (request, reply) => {
    const checks: Record<string, 'ok' | 'unavailable'> = { database: 'ok', storage: 'ok' };
    await sql`SELECT 1`.execute(app.ctx.db).catch((err) => {
      request.log.warn({ err }, 'readiness: database unreachable');
      checks.database = 'unavailable';
    });
    await app.ctx.store.ping().catch((err) => {
      request.log.warn({ err }, 'readiness: storage unreachable');
      checks.storage = 'unavailable';
    });
    const ready = Object.values(checks).every((c) => c === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });

  app.get('/metrics', { schema: hidden }, async (_request, reply) => {
    const { registry } = app.ctx.metrics;
    return reply.type(registry.contentType).send(await registry.metrics());
  });

  // The public document lists the partner endpoints only; operator routes stay out of it.
  app.get('/public/v1/openapi.json', { schema: hidden }, async () => {
    const doc = app.swagger() as { paths?: Record<string, unknown> };
    const paths = Object.fromEntries(Object.entries(doc.paths ?? {}).filter(([path]) => path.startsWith('/public/v1/')));
    return { ...doc, paths };
  });
}
