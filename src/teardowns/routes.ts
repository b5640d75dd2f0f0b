// The partner endpoints of the teardown resource, under /public/v1 behind the API-key chain.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiActor, callerOf } from '../http/caller.js';
import { ifMatchOf, ifNoneMatchOf } from '../http/conditional.js';
import { IfMatchHeaders, IfNoneMatchHeaders, notModifiedResponse, Page, preconditionResponses, withEtag } from '../http/schemas.js';
import { teardownBodyItems } from './rules.js';
import {
  CreateTeardownBody,
  errorResponses,
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
  const seller = { capability: 'seller' as const };

  app.post(
    '/teardowns',
    {
      // Cross-field rules (date order, ISO country) join the schema's items in one 422.
      config: { ...seller, rules: teardownBodyItems, idempotent: 'json' },
      schema: {
        operationId: 'createTeardown',
        summary: 'Create a teardown (published at once)',
        tags,
        body: CreateTeardownBody,
        response: { 201: withEtag(TeardownDetail), ...errorResponses },
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
        tags,
        querystring: ListTeardownsQuery,
        response: { 200: Page(TeardownListItem), ...errorResponses },
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
        tags,
        params: TeardownParams,
        headers: IfNoneMatchHeaders,
        response: { 200: withEtag(TeardownDetail), ...notModifiedResponse, ...errorResponses },
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
        tags,
        params: TeardownParams,
        body: UpdateTeardownBody,
        headers: IfMatchHeaders,
        response: { 200: withEtag(TeardownDetail), ...errorResponses, ...preconditionResponses },
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
        tags,
        params: TeardownParams,
        body: TransitionBody,
        headers: IfMatchHeaders,
        response: {
          ...preconditionResponses,
          200: withEtag(TransitionResult),
          ...errorResponses,
          400: Type.Unsafe({
            description:
              'Refused transition, admin-only action, reject without reason, unknown action (plain-string detail); or an authentication error.',
          }),
        },
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
        tags,
        params: TeardownParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted; empty body.' }), ...errorResponses, ...preconditionResponses },
      },
    },
    async (request, reply) => {
      const id = request.params.teardown_id;
      await service.remove(apiActor(request), callerOf(request).orgId, id, request.log, ifMatchOf(request, 'teardown', id));
      return reply.code(204).send(null);
    },
  );
}
