// Partner routes of sales / lease / exchange listings (under /public/v1). File uploads and removals
// live with the shared file routes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiActor, callerOf } from '../http/caller.js';
import { ifMatchOf, ifNoneMatchOf } from '../http/conditional.js';
import { IfMatchHeaders, IfNoneMatchHeaders, notModifiedResponse, Page, routeErrors, withEtag } from '../http/schemas.js';
import { listingBodyItems } from './rules.js';
import { CreateListingBody, ListingDetail, ListingIdParams, ListingListItem, ListingQuery, UpdateListingBody } from './schemas.js';
import { listingService, type Owner } from './service.js';

const tags = ['listings'];
const NOT_FOUND = 'Listing not found';
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
        description:
          'Creates a sales / lease / exchange listing, `active` unless `status` is `draft`. The vocabulary field of the listing type is required (`aircraft_type`, `engine_model` or `apu_model`, by name); the other two are ignored.',
        body: CreateListingBody,
        response: { 201: withEtag(ListingDetail) },
        ...routeErrors({ seller: true, codes: { 400: ['unknown_vocabulary'], 422: ['vocab_required'] } }),
      },
    },
    async (request, reply) => {
      const { body, etag } = await service.create(owner(request), apiActor(request), request.body);
      return reply.code(201).header('etag', etag).send(body);
    },
  );

  app.get(
    '/sales-lease-exchange',
    {
      schema: {
        operationId: 'listListings',
        tags,
        summary: "List the organization's active listings, newest first",
        description:
          "Only the caller's organization and only `active` listings (read any other status by id), newest first, ties broken by id. Vocabulary filters take names, case-insensitive.",
        querystring: ListingQuery,
        response: { 200: Page(ListingListItem, 'ListingPage') },
        ...routeErrors({ codes: { 400: ['unknown_vocabulary'] } }),
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
        description: 'The listing in the detail shape with its ETag; If-None-Match answers 304 while it is unchanged.',
        params: ListingIdParams,
        headers: IfNoneMatchHeaders,
        response: { 200: withEtag(ListingDetail), ...notModifiedResponse },
        ...routeErrors({ notFound: NOT_FOUND }),
      },
    },
    async (request, reply) => {
      const matches = ifNoneMatchOf(request);
      const { body, etag } = await service.get(owner(request), request.params.listing_id);
      reply.header('etag', etag);
      return matches?.(etag) ? reply.code(304).send() : body;
    },
  );

  app.patch(
    '/sales-lease-exchange/:listing_id',
    {
      config: { ...seller, rules: listingBodyItems },
      schema: {
        operationId: 'updateListing',
        tags,
        summary: 'Update a listing (sparse); also the only way to change its status',
        description:
          'Writes only the keys sent; null clears the nullable fields. `status` may move to any of the nine statuses, except while an operator holds the listing suspended (409 `suspended_by_operator`).',
        params: ListingIdParams,
        body: UpdateListingBody,
        headers: IfMatchHeaders,
        response: { 200: withEtag(ListingDetail) },
        ...routeErrors({
          seller: true,
          notFound: NOT_FOUND,
          codes: { 400: ['unknown_vocabulary'], 409: ['suspended_by_operator'], 422: ['invalid_audience'] },
        }),
      },
    },
    async (request, reply) => {
      const id = request.params.listing_id;
      const ifMatch = ifMatchOf(request, 'listing', id);
      const { body, etag } = await service.update(owner(request), apiActor(request), id, request.body, request.log, ifMatch);
      return reply.header('etag', etag).send(body);
    },
  );

  app.delete(
    '/sales-lease-exchange/:listing_id',
    {
      config: seller,
      schema: {
        operationId: 'deleteListing',
        tags,
        summary: 'Delete a listing and its files (PATCH status archived is the soft alternative)',
        description:
          'Deletes the listing for good, with an audit row, then removes its stored files best effort. A second call answers 404.',
        params: ListingIdParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted; empty body.' }) },
        ...routeErrors({ seller: true, notFound: NOT_FOUND }),
      },
    },
    async (request, reply) => {
      const id = request.params.listing_id;
      await service.remove(owner(request), apiActor(request), id, request.log, ifMatchOf(request, 'listing', id));
      return reply.code(204).send(null);
    },
  );
}
