// Operator rows of the listings feature (under /admin/v1, inside the admin scope and its token check).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { plainErrorRef, withEtag } from '../http/schemas.js';
import { AdminListingParams, AdminListingStatusBody, ImportListingsBody, ImportResult, ListingDetail } from './schemas.js';
import { listingService } from './service.js';

export async function listingAdminRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = listingService(app.ctx);

  app.post(
    '/import/listings',
    { schema: { operationId: 'adminImportListings', tags: ['admin'], body: ImportListingsBody, response: { 201: ImportResult } } },
    async (request, reply) => {
      const ids = await service.import({ kind: 'admin', requestId: request.id }, request.body);
      return reply.code(201).send({ ids });
    },
  );

  app.patch(
    '/listings/:id',
    {
      schema: {
        operationId: 'adminSetListingStatus',
        summary: 'Suspend a listing under an operator hold (status suspended), or lift the hold by setting any other status',
        tags: ['admin'],
        params: AdminListingParams,
        body: AdminListingStatusBody,
        response: { 200: withEtag(ListingDetail), 404: plainErrorRef },
      },
    },
    async (request, reply) => {
      const { body, etag } = await service.moderate({ kind: 'admin', requestId: request.id }, request.params.id, request.body);
      return reply.header('etag', etag).send(body);
    },
  );
}
