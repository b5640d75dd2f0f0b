// Operator rows of the teardown resource, registered inside the /admin/v1 scope (same token, same errors).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Actor } from '../audit/record.js';
import { businessErrorRef, plainErrorRef, withEtag } from '../http/schemas.js';
import { teardownBodyItems } from './rules.js';
import { AdminExpiryBody, AdminTeardownParams, ImportResult, ImportTeardownsBody, TeardownDetail } from './schemas.js';
import { teardownService } from './service.js';

/** The teardown rules of each imported item, at its index. */
function importItemsRules(body: unknown) {
  const items = (body as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? items.flatMap((item, index) => teardownBodyItems(item, ['body', 'items', index])) : [];
}

export async function teardownAdminRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = teardownService(app.ctx);
  const tags = ['admin'];
  const actor = (requestId: string): Actor => ({ kind: 'admin', requestId });

  app.post(
    '/import/teardowns',
    {
      config: { rules: importItemsRules },
      schema: {
        operationId: 'adminImportTeardowns',
        summary: 'Import teardowns, all or nothing; an invalid item is named by its index in loc',
        tags,
        body: ImportTeardownsBody,
        response: { 201: ImportResult, 400: businessErrorRef, 404: businessErrorRef },
      },
    },
    async (request, reply) => {
      const ids = await service.import(actor(request.id), request.body);
      return reply.code(201).send({ ids });
    },
  );

  app.patch(
    '/teardowns/:id',
    {
      schema: {
        operationId: 'adminSetTeardownExpiry',
        summary: "Change a teardown's expires_at (the auto-archive job archives it once reached)",
        tags,
        params: AdminTeardownParams,
        body: AdminExpiryBody,
        response: { 200: withEtag(TeardownDetail), 404: plainErrorRef },
      },
    },
    async (request, reply) => {
      const { body, etag } = await service.setExpiry(actor(request.id), request.params.id, request.body.expires_at);
      return reply.header('etag', etag).send(body);
    },
  );
}
