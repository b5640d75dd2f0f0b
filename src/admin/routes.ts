// The operator API (decisions.md section 7): accounts, keys, vocabularies, audit, alerts, jobs.
// Resource features keep their own admin rows (imports, expiry) beside them and are registered at the end.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { accountsRepository, toKeyView } from '../accounts/repository.js';
import { type Actor, recordAudit } from '../audit/record.js';
import { conflict, notFound } from '../http/errors.js';
import { type VocabularyKind, toVocabularyView } from '../vocabularies/repository.js';
import { adminAuthHook } from './auth.js';
import * as S from './schemas.js';

const VOCABULARY_KINDS: Record<string, VocabularyKind> = {
  'aircraft-types': 'aircraft_type',
  'engine-models': 'engine_model',
  'apu-models': 'apu_model',
};

export async function adminRoutes(root: FastifyInstance, options: { token: string }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const accounts = accountsRepository(ctx.db);
  const tags = ['admin'];
  const actor = (requestId: string): Actor => ({ kind: 'admin', requestId });

  app.addHook('onRequest', adminAuthHook(options.token, ctx.metrics));

  app.post(
    '/organizations',
    { schema: { operationId: 'adminCreateOrganization', tags, body: S.CreateOrganizationBody, response: { 201: S.OrganizationView } } },
    async (request, reply) => {
      const org = await ctx.db.transaction().execute(async (tx) => {
        const created = await accountsRepository(tx).createOrganization(request.body);
        await recordAudit(tx, actor(request.id), { orgId: created.id, action: 'organization.created', entityType: 'organization', entityId: created.id, newState: request.body });
        return created;
      });
      return reply.code(201).send(org);
    },
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
    async (request) => {
      return ctx.db.transaction().execute(async (tx) => {
        const repo = accountsRepository(tx);
        const before = await repo.findOrganization(request.params.id);
        if (!before) throw notFound('Organization');
        const after = await repo.updateOrganization(request.params.id, request.body, ctx.clock.now());
        const previous = Object.fromEntries(Object.keys(request.body).map((k) => [k, before[k as keyof typeof before]]));
        await recordAudit(tx, actor(request.id), { orgId: before.id, action: 'organization.updated', entityType: 'organization', entityId: before.id, previousState: previous, newState: request.body });
        return after;
      });
    },
  );

  app.post(
    '/organizations/:id/users',
    { schema: { operationId: 'adminCreateUser', tags, params: S.IdParams, body: S.CreateUserBody, response: { 201: S.UserView } } },
    async (request, reply) => {
      const org = await accounts.findOrganization(request.params.id);
      if (!org) throw notFound('Organization');
      const user = await ctx.db.transaction().execute(async (tx) => {
        const created = await accountsRepository(tx).createUser(org.id, request.body);
        if (!created) throw conflict(`A user with email ${request.body.email} already exists in this organization.`);
        await recordAudit(tx, actor(request.id), { orgId: org.id, action: 'user.created', entityType: 'user', entityId: created.id, newState: request.body });
        return created;
      });
      return reply.code(201).send(user);
    },
  );

  app.get('/organizations/:id/users', { schema: { operationId: 'adminListUsers', tags, params: S.IdParams, response: { 200: Type.Object({ items: Type.Array(S.UserView) }) } } }, async (request) => {
    if (!(await accounts.findOrganization(request.params.id))) throw notFound('Organization');
    return { items: await accounts.listUsers(request.params.id) };
  });

  app.patch(
    '/users/:id',
    { schema: { operationId: 'adminUpdateUser', tags, params: S.IdParams, body: S.UpdateUserBody, response: { 200: S.UserView } } },
    async (request) => {
      return ctx.db.transaction().execute(async (tx) => {
        const repo = accountsRepository(tx);
        const before = await repo.findUser(request.params.id);
        if (!before) throw notFound('User');
        const after = await repo.updateUser(before.id, request.body, ctx.clock.now());
        await recordAudit(tx, actor(request.id), {
          orgId: before.org_id,
          action: 'user.updated',
          entityType: 'user',
          entityId: before.id,
          previousState: { status: before.status, capabilities: before.capabilities },
          newState: request.body,
        });
        return after;
      });
    },
  );

  app.post(
    '/users/:id/api-keys',
    { schema: { operationId: 'adminMintKey', tags, params: S.IdParams, body: Type.Optional(S.MintKeyBody), response: { 201: S.MintedKeyView } } },
    async (request, reply) => {
      const user = await accounts.findUser(request.params.id);
      if (!user) throw notFound('User');
      const body = request.body ?? {};
      const minted = await ctx.db.transaction().execute(async (tx) => {
        const key = await accountsRepository(tx).mintKey(user, { name: body.name, expires_at: body.expires_at ? new Date(body.expires_at) : null });
        await recordAudit(tx, actor(request.id), { orgId: user.org_id, action: 'api_key.minted', entityType: 'api_key', entityId: key.id, newState: { prefix: key.prefix, user_id: user.id, expires_at: key.expires_at } });
        return key;
      });
      return reply.code(201).send(minted);
    },
  );

  app.get('/users/:id/api-keys', { schema: { operationId: 'adminListKeys', tags, params: S.IdParams, response: { 200: Type.Object({ items: Type.Array(S.KeyView) }) } } }, async (request) => {
    if (!(await accounts.findUser(request.params.id))) throw notFound('User');
    return { items: (await accounts.listKeys(request.params.id)).map(toKeyView) };
  });

  app.post('/api-keys/:id/revoke', { schema: { operationId: 'adminRevokeKey', tags, params: S.IdParams, response: { 200: S.KeyView } } }, async (request) => {
    return ctx.db.transaction().execute(async (tx) => {
      const row = await accountsRepository(tx).revokeKey(request.params.id, ctx.clock.now(), 'revoked_by_operator');
      if (!row) throw notFound('API key');
      await recordAudit(tx, actor(request.id), { orgId: row.org_id, action: 'api_key.revoked', entityType: 'api_key', entityId: row.id, newState: { revoked_at: row.revoked_at } });
      return toKeyView(row);
    });
  });

  app.post(
    '/api-keys/:id/rotate',
    { schema: { operationId: 'adminRotateKey', tags, params: S.IdParams, response: { 200: S.MintedKeyView } } },
    async (request) => {
      const result = await accounts.rotateKey(request.params.id, ctx.clock.now());
      if (result === 'not_found') throw notFound('API key');
      if (result === 'not_active') throw conflict('Only a live key can be rotated; this one is revoked or already rotated.');
      await recordAudit(ctx.db, actor(request.id), { orgId: result.org_id, action: 'api_key.rotated', entityType: 'api_key', entityId: request.params.id, newState: { replaced_by: result.id, prefix: result.prefix } });
      return result;
    },
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
      const row = await ctx.vocabularies.insert({ kind: VOCABULARY_KINDS[request.params.kind], ...request.body });
      if (!row) throw conflict(`'${request.body.name.trim()}' already exists in ${request.params.kind}.`);
      return reply.code(201).send(toVocabularyView(row));
    },
  );

  app.get('/audit-events', { schema: { operationId: 'adminAuditEvents', tags, querystring: S.AuditQuery, response: { 200: Type.Object({ items: Type.Array(S.AuditEventView) }) } } }, async (request) => {
    const q = request.query;
    let query = ctx.db.selectFrom('audit_events').selectAll();
    if (q.entity_id) query = query.where('entity_id', '=', q.entity_id);
    if (q.org_id) query = query.where('org_id', '=', q.org_id);
    if (q.action) query = query.where('action', '=', q.action);
    return { items: await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute() };
  });

  app.get('/alerts', { schema: { operationId: 'adminAlerts', tags, querystring: S.AlertsQuery, response: { 200: Type.Object({ items: Type.Array(S.AlertView) }) } } }, async (request) => {
    let query = ctx.db.selectFrom('security_alerts').selectAll();
    if (request.query.org_id) query = query.where('org_id', '=', request.query.org_id);
    return { items: await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(request.query.limit).execute() };
  });

  app.post('/jobs/run', { schema: { operationId: 'adminRunJobs', tags, response: { 200: S.JobsRunView } } }, async () => app.jobs.runAll());

  // Feature admin rows, inside this scope (same token, same errors).
}
