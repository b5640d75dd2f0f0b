// Operator rows of the listings feature (under /admin/v1, inside the admin scope and its token check).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ImportListingsBody, ImportResult } from './schemas.js';
import { importListings } from './service.js';

export async function listingAdminRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/import/listings',
    { schema: { operationId: 'adminImportListings', tags: ['admin'], body: ImportListingsBody, response: { 201: ImportResult } } },
    async (request, reply) => {
      const ids = await importListings(app.ctx, { kind: 'admin', requestId: request.id }, request.body);
      return reply.code(201).send({ ids });
    },
  );
}
