// The partner endpoints of the teardown resource, under /public/v1 behind the API-key chain.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiActor, callerOf } from '../http/caller.js';
import { ifMatchOf, ifNoneMatchOf } from '../http/conditional.js';
import { IfMatchHeaders, IfNoneMatchHeaders, notModifiedResponse, optionalBody, Page, routeErrors, withEtag } from '../http/schemas.js';
import { teardownBodyItems } from './rules.js';
import {
  CreateTeardownBody,
  ListTeardownsQuery,
  TeardownDetail,
  TeardownListItem,
  TeardownParams,
  TransitionBody,
  TransitionResult,
  UpdateTeardownBody,
} from './schemas.js';
import { teardownService } from './service.js';

export async function teardownRoutes(root: FastifyInstance) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const service = teardownService(app.ctx);
  const tags = ['teardowns'];
  const NOT_FOUND = 'Teardown not found';
  const seller = { capability: 'seller' as const };

  app.post(
    '/teardowns',
    {
      // Cross-field rules (date order, ISO country) join the schema's items in one 422.
      config: { ...seller, rules: teardownBodyItems, idempotent: 'json' },
      schema: {
        operationId: 'createTeardown',
        summary: 'Create a teardown (published at once)',
        description:
          'Creates and publishes a teardown: `status` Starting, In process or Completed; `expires_at` is 90 days after publication. Vocabulary fields take a name (`A320-200`, `CFM56-5B`), case-insensitive. Every schema problem is reported in one 422; then `invalid_status`, `vocab_required`, then 400 `unknown_vocabulary` with the valid names.',
        tags,
        body: CreateTeardownBody,
        response: { 201: withEtag(TeardownDetail) },
        ...routeErrors({ seller: true, codes: { 400: ['unknown_vocabulary'], 422: ['invalid_status', 'vocab_required'] } }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { body, etag } = await service.create(apiActor(request), caller.orgId, caller.userId, request.body);
      return reply.code(201).header('etag', etag).send(body);
    },
  );

  app.get(
    '/teardowns',
    {
      schema: {
        operationId: 'listTeardowns',
        summary: "List the caller's teardowns",
        description:
          "The caller's organization only, every status but `archived` unless `status` says otherwise. Items use the legacy list names (`id`, `registration`, `location_country`). Pages are 1-indexed; a page past the end is empty.",
        tags,
        querystring: ListTeardownsQuery,
        response: { 200: Page(TeardownListItem, 'TeardownPage') },
        ...routeErrors({ codes: { 400: ['unknown_vocabulary'] } }),
      },
    },
    async (request) => service.list(callerOf(request).orgId, request.query),
  );

  app.get(
    '/teardowns/:teardown_id',
    {
      schema: {
        operationId: 'getTeardown',
        summary: 'Read one teardown (any status, legacy asset types included)',
        description:
          'The teardown in the detail shape, with its ETag. Send the ETag back in If-None-Match to get 304 while it is unchanged, or in If-Match to make a write conditional.',
        tags,
        params: TeardownParams,
        headers: IfNoneMatchHeaders,
        response: { 200: withEtag(TeardownDetail), ...notModifiedResponse },
        ...routeErrors({ notFound: NOT_FOUND }),
      },
    },
    async (request, reply) => {
      const matches = ifNoneMatchOf(request);
      const { body, etag } = await service.get(callerOf(request).orgId, request.params.teardown_id);
      reply.header('etag', etag);
      return matches?.(etag) ? reply.code(304).send() : body;
    },
  );

  app.patch(
    '/teardowns/:teardown_id',
    {
      config: { ...seller, rules: teardownBodyItems },
      // A PATCH sent without any body is the empty update, not a malformed one. A JSON `null` is
      // a body, and not an object: validation refuses it, as on every other route.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
      schema: {
        operationId: 'updateTeardown',
        summary: 'Sparse update; null clears the nullable fields',
        description:
          'Writes only the keys sent; an empty body changes nothing. `status` is not patchable (use the transition). `audience` takes an array of Airline, Lessor, OEM, MRO, Distributor, Others, or null to clear. `images` and `documents` overwrite the lists.',
        tags,
        params: TeardownParams,
        body: UpdateTeardownBody,
        headers: IfMatchHeaders,
        response: { 200: withEtag(TeardownDetail) },
        ...routeErrors({ seller: true, notFound: NOT_FOUND, codes: { 400: ['unknown_vocabulary'], 422: ['invalid_audience'] } }),
        ...optionalBody,
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const id = request.params.teardown_id;
      const ifMatch = ifMatchOf(request, 'teardown', id);
      const { body, etag } = await service.update(apiActor(request), caller.orgId, id, request.body, request.log, ifMatch);
      return reply.header('etag', etag).send(body);
    },
  );

  app.post(
    '/teardowns/transition/:teardown_id',
    {
      config: { ...seller, idempotent: 'json' },
      schema: {
        operationId: 'transitionTeardown',
        summary: 'Lifecycle transition (start_processing, complete, unpublish, archive, restore, submit; admin: approve, reject, suspend)',
        description:
          'Moves the teardown through its lifecycle: `start_processing` Starting → In process, `complete` In process → Completed, `unpublish` active → draft, `archive` any → archived, `restore` archived → draft, `submit` draft → Starting (re-published for 90 days). A move not valid from the current status is a 400 with a plain-string detail. The answer uses the legacy transition shape.',
        tags,
        params: TeardownParams,
        body: TransitionBody,
        headers: IfMatchHeaders,
        response: { 200: withEtag(TransitionResult) },
        ...routeErrors({
          seller: true,
          notFound: NOT_FOUND,
          plain400: {
            description:
              'A plain-string detail: a move not valid from the current status, an admin-only action, reject without a reason, an unknown action.',
            examples: [
              "Invalid transition: action 'complete' is not allowed from status 'active_starting'",
              "Action 'approve' requires an admin role",
              "Action 'reject' requires a reason",
            ],
          },
        }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const id = request.params.teardown_id;
      const ifMatch = ifMatchOf(request, 'teardown', id);
      const { body, etag } = await service.transition(apiActor(request), caller, id, request.body, ifMatch);
      return reply.header('etag', etag).send(body);
    },
  );

  app.delete(
    '/teardowns/:teardown_id',
    {
      config: seller,
      schema: {
        operationId: 'deleteTeardown',
        summary: 'Hard delete (audited); stored files are removed best effort',
        description:
          'Deletes the teardown for good, with an audit row, then removes its stored files best effort. Not idempotent: a second call answers 404. The soft alternative is the `archive` transition.',
        tags,
        params: TeardownParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted; empty body.' }) },
        ...routeErrors({ seller: true, notFound: NOT_FOUND }),
      },
    },
    async (request, reply) => {
      const id = request.params.teardown_id;
      await service.remove(apiActor(request), callerOf(request).orgId, id, request.log, ifMatchOf(request, 'teardown', id));
      return reply.code(204).send(null);
    },
  );
}
