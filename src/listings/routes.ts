// Partner routes of sales / lease / exchange listings (under /public/v1). File uploads and removals
// live with the shared file routes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiActor, callerOf } from '../http/caller.js';
import { authErrorResponses, businessErrorRef, Page, plainErrorRef } from '../http/schemas.js';
import { listingBodyItems } from './rules.js';
import { CreateListingBody, ListingDetail, ListingIdParams, ListingListItem, ListingQuery, UpdateListingBody } from './schemas.js';
import { listingService, type Owner } from './service.js';

const tags = ['listings'];
const seller = { capability: 'seller' } as const;

const owner = (request: FastifyRequest): Owner => ({ orgId: callerOf(request).orgId, userId: callerOf(request).userId });

export async function listingRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = listingService(app.ctx);

  app.post(
    '/sales-lease-exchange',
    {
      config: { ...seller, rules: listingBodyItems, idempotent: 'json' },
      schema: {
        operationId: 'createListing',
        tags,
        summary: 'Create a listing',
        body: CreateListingBody,
        response: { 201: ListingDetail, ...authErrorResponses, 400: businessErrorRef },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(owner(request), apiActor(request), request.body)),
  );

  app.get(
    '/sales-lease-exchange',
    {
      schema: {
        operationId: 'listListings',
        tags,
        summary: "List the organization's active listings, newest first",
        querystring: ListingQuery,
        response: { 200: Page(ListingListItem), ...authErrorResponses },
      },
    },
    async (request) => service.list(owner(request), request.query),
  );

  app.get(
    '/sales-lease-exchange/:listing_id',
    {
      schema: {
        operationId: 'getListing',
        tags,
        summary: 'Read one listing, in any status',
        params: ListingIdParams,
        response: { 200: ListingDetail, ...authErrorResponses, 404: plainErrorRef },
      },
    },
    async (request) => service.get(owner(request), request.params.listing_id),
  );

  app.patch(
    '/sales-lease-exchange/:listing_id',
    {
      config: { ...seller, rules: listingBodyItems },
      schema: {
        operationId: 'updateListing',
        tags,
        summary: 'Update a listing (sparse); also the only way to change its status',
        params: ListingIdParams,
        body: UpdateListingBody,
        response: { 200: ListingDetail, ...authErrorResponses, 404: plainErrorRef, 409: businessErrorRef },
      },
    },
    async (request) => service.update(owner(request), apiActor(request), request.params.listing_id, request.body, request.log),
  );

  app.delete(
    '/sales-lease-exchange/:listing_id',
    {
      config: seller,
      schema: {
        operationId: 'deleteListing',
        tags,
        summary: 'Delete a listing and its files (PATCH status archived is the soft alternative)',
        params: ListingIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...authErrorResponses, 404: plainErrorRef },
      },
    },
    async (request, reply) => {
      await service.remove(owner(request), apiActor(request), request.params.listing_id, request.log);
      return reply.code(204).send(null);
    },
  );
}
