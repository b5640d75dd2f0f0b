// The operator API (decisions.md section 7): accounts, keys, vocabularies, audit, alerts, jobs.
// Resource features keep their own admin rows (imports, expiry) beside them and are registered at the end.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountsRepository, toKeyView } from '../accounts/repository.js';
import { securityAlertsRepository } from '../accounts/security-alerts.js';
import { accountsService, type Operator } from '../accounts/service.js';
import { auditRepository } from '../audit/repository.js';
import { conflict, notFound } from '../http/errors.js';
import { listingAdminRoutes } from '../listings/admin-routes.js';
import { teardownAdminRoutes } from '../teardowns/admin-routes.js';
import { toVocabularyView } from '../vocabularies/repository.js';
import { vocabularyService } from '../vocabularies/service.js';
import { webhookAdminRoutes } from '../webhooks/admin-routes.js';
import { adminAuthHook } from './auth.js';
import * as S from './schemas.js';
import { VOCABULARY_KINDS } from './schemas.js';

export async function adminRoutes(root: FastifyInstance, options: { token: string }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const accounts = accountsRepository(ctx.db);
  const audit = auditRepository(ctx.db);
  const alerts = securityAlertsRepository(ctx.db);
  const service = accountsService(ctx);
  const tags = ['admin'];
  const by = (request: FastifyRequest): Operator => ({ requestId: request.id });

  app.addHook('onRequest', adminAuthHook(options.token, ctx.metrics));
  // Any operator change may concern a key, its minter or its organization: this instance forgets
  // the principals it cached, so the change applies to its very next request.
  // onSend: after the change committed, before the operator hears back.
  app.addHook('onSend', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') ctx.principals.clear();
  });

  app.post(
    '/organizations',
    { schema: { operationId: 'adminCreateOrganization', tags, body: S.CreateOrganizationBody, response: { 201: S.OrganizationView } } },
    async (request, reply) => reply.code(201).send(await service.createOrganization(request.body, by(request))),
  );

  app.get('/organizations', { schema: { operationId: 'adminListOrganizations', tags, response: { 200: Type.Object({ items: Type.Array(S.OrganizationView) }) } } }, async () => ({
    items: await accounts.listOrganizations(),
  }));

  app.get('/organizations/:id', { schema: { operationId: 'adminGetOrganization', tags, params: S.IdParams, response: { 200: S.OrganizationView } } }, async (request) => {
    const org = await accounts.findOrganization(request.params.id);
    if (!org) throw notFound('Organization');
    return org;
  });

  app.patch(
    '/organizations/:id',
    { schema: { operationId: 'adminUpdateOrganization', tags, params: S.IdParams, body: S.UpdateOrganizationBody, response: { 200: S.OrganizationView } } },
    async (request) => service.updateOrganization(request.params.id, request.body, by(request)),
  );

  app.post(
    '/organizations/:id/users',
    { schema: { operationId: 'adminCreateUser', tags, params: S.IdParams, body: S.CreateUserBody, response: { 201: S.UserView } } },
    async (request, reply) => reply.code(201).send(await service.createUser(request.params.id, request.body, by(request))),
  );

  app.get('/organizations/:id/users', { schema: { operationId: 'adminListUsers', tags, params: S.IdParams, response: { 200: Type.Object({ items: Type.Array(S.UserView) }) } } }, async (request) => {
    if (!(await accounts.findOrganization(request.params.id))) throw notFound('Organization');
    return { items: await accounts.listUsers(request.params.id) };
  });

  app.patch(
    '/users/:id',
    { schema: { operationId: 'adminUpdateUser', tags, params: S.IdParams, body: S.UpdateUserBody, response: { 200: S.UserView } } },
    async (request) => service.updateUser(request.params.id, request.body, by(request)),
  );

  app.post(
    '/users/:id/api-keys',
    {
      schema: { operationId: 'adminMintKey', tags, params: S.IdParams, body: S.MintKeyBody, response: { 201: S.MintedKeyView } },
      // Every field is optional, so is the body: no body means {} (Ajv would refuse `undefined`).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const { body } = request;
      const minted = await service.mintKey(request.params.id, { name: body.name, expires_at: body.expires_at ? new Date(body.expires_at) : null }, by(request));
      return reply.code(201).send(minted);
    },
  );

  app.get('/users/:id/api-keys', { schema: { operationId: 'adminListKeys', tags, params: S.IdParams, response: { 200: Type.Object({ items: Type.Array(S.KeyView) }) } } }, async (request) => {
    if (!(await accounts.findUser(request.params.id))) throw notFound('User');
    return { items: (await accounts.listKeys(request.params.id)).map(toKeyView) };
  });

  app.post('/api-keys/:id/revoke', { schema: { operationId: 'adminRevokeKey', tags, params: S.IdParams, response: { 200: S.KeyView } } }, async (request) =>
    service.revokeKey(request.params.id, by(request)),
  );

  app.post(
    '/api-keys/:id/rotate',
    { schema: { operationId: 'adminRotateKey', tags, params: S.IdParams, response: { 200: S.MintedKeyView } } },
    async (request) => service.rotateKey(request.params.id, by(request)),
  );

  app.get(
    '/vocabularies/:kind',
    { schema: { operationId: 'adminListVocabulary', tags, params: S.VocabularyKindParam, response: { 200: Type.Object({ items: Type.Array(S.VocabularyView) }) } } },
    async (request) => ({ items: (await ctx.vocabularies.list(VOCABULARY_KINDS[request.params.kind])).map(toVocabularyView) }),
  );

  app.post(
    '/vocabularies/:kind',
    { schema: { operationId: 'adminAddVocabulary', tags, params: S.VocabularyKindParam, body: S.CreateVocabularyBody, response: { 201: S.VocabularyView } } },
    async (request, reply) => {
      const actor = { kind: 'admin', requestId: request.id } as const;
      const row = await vocabularyService(ctx).add(actor, { kind: VOCABULARY_KINDS[request.params.kind], ...request.body });
      if (!row) throw conflict(`'${request.body.name.trim()}' already exists in ${request.params.kind}.`);
      return reply.code(201).send(toVocabularyView(row));
    },
  );

  app.get('/audit-events', { schema: { operationId: 'adminAuditEvents', tags, querystring: S.AuditQuery, response: { 200: Type.Object({ items: Type.Array(S.AuditEventView) }) } } }, async (request) => {
    const { entity_id, org_id, action, limit } = request.query;
    return { items: await audit.list({ entityId: entity_id, orgId: org_id, action, limit }) };
  });

  app.get('/alerts', { schema: { operationId: 'adminAlerts', tags, querystring: S.AlertsQuery, response: { 200: Type.Object({ items: Type.Array(S.AlertView) }) } } }, async (request) => ({
    items: await alerts.list({ orgId: request.query.org_id, limit: request.query.limit }),
  }));

  app.post('/jobs/run', { schema: { operationId: 'adminRunJobs', tags, response: { 200: S.JobsRunView } } }, async () => app.jobs.runAll());

  // Feature admin rows, inside this scope (same token, same errors).
  await app.register(listingAdminRoutes);
  await app.register(teardownAdminRoutes);
  await app.register(webhookAdminRoutes);
}
