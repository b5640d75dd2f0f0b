// The operator API (decisions.md section 7): its token, accounts, keys, vocabularies, audit,
// alerts and jobs. Keys are exercised against GET /public/v1/teardowns.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { auditFor, createOrg, createPrincipal, createUser, headersFor, mintKey } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const publicList = (key: string, orgId: string) =>
  t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: headersFor(key, orgId) });

describe('operator authentication', () => {
  const unauthorized = { detail: { error_code: 'unauthorized', message: expect.any(String) } };
  const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/admin/v1/organizations', headers });

  it('refuses a request without a token', async () => {
    const res = await get({});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(unauthorized);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('refuses a wrong token, including one that only shares a prefix', async () => {
    for (const token of ['wrong-token-wrong-token', ADMIN_TOKEN.slice(0, -1), `${ADMIN_TOKEN}x`, ADMIN_TOKEN.toUpperCase()]) {
      const res = await get({ authorization: `Bearer ${token}` });
      expect(res.statusCode, token).toBe(401);
      expect(res.json()).toEqual(unauthorized);
    }
  });

  it('refuses the right token under another scheme or none', async () => {
    for (const authorization of [`Basic ${ADMIN_TOKEN}`, `Token ${ADMIN_TOKEN}`, ADMIN_TOKEN, `Bearer${ADMIN_TOKEN}`]) {
      expect((await get({ authorization })).statusCode, authorization).toBe(401);
    }
  });

  it('refuses a partner API key', async () => {
    const p = await createPrincipal(t);
    expect((await get({ authorization: `Bearer ${p.key}`, 'x-organization-id': p.orgId })).statusCode).toBe(401);
  });

  it('accepts the token with the scheme in any case', async () => {
    expect((await get({ authorization: `bearer ${ADMIN_TOKEN}` })).statusCode).toBe(200);
  });

  it('checks the token before validating: a bad body without a token is a 401', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/organizations', payload: { bogus: true } });
    expect(res.statusCode).toBe(401);
  });

  it('does not exist without ADMIN_TOKEN configured', async () => {
    const bare = await createTestApp({ env: { ADMIN_TOKEN: '' } });
    try {
      for (const [method, url] of [
        ['GET', '/admin/v1/organizations'],
        ['POST', '/admin/v1/jobs/run'],
      ] as const) {
        const res = await bare.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Not Found' });
      }
    } finally {
      await bare.close();
    }
  });
});

describe('organizations', () => {
  it('creates an organization with the documented defaults', async () => {
    const res = await t.admin('POST', '/admin/v1/organizations', { name: 'Skyline Parts' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: UUID,
      name: 'Skyline Parts',
      account_status: 'active',
      subscription_status: 'active',
      api_access_enabled: true,
      created_at: ISO,
      updated_at: ISO,
    });
  });

  it('creates an organization with every field given', async () => {
    const res = await t.admin('POST', '/admin/v1/organizations', {
      name: 'Dormant',
      account_status: 'inactive',
      subscription_status: 'trialing',
      api_access_enabled: false,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ account_status: 'inactive', subscription_status: 'trialing', api_access_enabled: false });
  });

  it('refuses an invalid organization with schema items', async () => {
    const res = await t.admin('POST', '/admin/v1/organizations', { account_status: 'sleeping', api_access_enabled: 'yes', color: 'red' });
    expect(res.statusCode).toBe(422);
    const items = res.json().detail;
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'color'] }),
        expect.objectContaining({ type: 'literal_error', loc: ['body', 'account_status'], input: 'sleeping' }),
        expect.objectContaining({ type: 'bool_type', loc: ['body', 'api_access_enabled'] }),
        expect.objectContaining({ type: 'missing', loc: ['body'], ctx: { fields: ['name'] } }),
      ]),
    );
    expect(items).toHaveLength(4);
  });

  it('patches only the fields sent and audits the previous values', async () => {
    const org = await createOrg(t, { name: 'Before' });
    const res = await t.admin('PATCH', `/admin/v1/organizations/${org.id}`, { subscription_status: 'past_due' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: org.id, name: 'Before', subscription_status: 'past_due', account_status: 'active' });

    const [updated] = await auditFor(t, org.id);
    expect(updated).toMatchObject({
      action: 'organization.updated',
      previous_state: { subscription_status: 'active' },
      new_state: { subscription_status: 'past_due' },
      metadata: { via_api: false, via_admin: true, request_id: expect.any(String) },
    });
  });

  it('answers 404 for an unknown organization and 422 for a malformed id', async () => {
    const missing = await t.admin('PATCH', `/admin/v1/organizations/${randomUUID()}`, { name: 'x' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: { error_code: 'not_found', message: expect.any(String) } });
    const malformed = await t.admin('PATCH', '/admin/v1/organizations/not-a-uuid', { name: 'x' });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().detail[0]).toMatchObject({ type: 'uuid_parsing', loc: ['path', 'id'] });
  });

  it('audits creation with the request id of the call', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/organizations',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': 'ops-ticket-42' },
      payload: { name: 'Audited' },
    });
    const [created] = await auditFor(t, res.json().id);
    expect(created).toMatchObject({
      action: 'organization.created',
      new_state: { name: 'Audited' },
      metadata: { request_id: 'ops-ticket-42' },
    });
  });
});

describe('users', () => {
  it('creates a user with capabilities', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/admin/v1/organizations/${org.id}/users`, {
      email: 'buyer@example.com',
      capabilities: ['seller', 'admin'],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: UUID,
      org_id: org.id,
      email: 'buyer@example.com',
      capabilities: ['seller', 'admin'],
      status: 'active',
      created_at: ISO,
      updated_at: ISO,
    });
  });

  it('refuses a second user with the same email in one organization, whatever its case', async () => {
    const org = await createOrg(t);
    await createUser(t, org.id, { email: 'dup@example.com' });
    const res = await t.admin('POST', `/admin/v1/organizations/${org.id}/users`, { email: 'DUP@example.com', capabilities: [] });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail.error_code).toBe('conflict');
    const other = await createOrg(t);
    expect(
      (await t.admin('POST', `/admin/v1/organizations/${other.id}/users`, { email: 'dup@example.com', capabilities: [] })).statusCode,
    ).toBe(201);
  });

  it('refuses an unknown capability and a malformed email', async () => {
    const org = await createOrg(t);
    const res = await t.admin('POST', `/admin/v1/organizations/${org.id}/users`, { email: 'not-an-email', capabilities: ['buyer'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((i: { loc: unknown[] }) => i.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'email'],
        ['body', 'capabilities', 0],
      ]),
    );
  });

  it('answers 404 when the organization does not exist', async () => {
    const res = await t.admin('POST', `/admin/v1/organizations/${randomUUID()}/users`, { email: 'a@example.com', capabilities: [] });
    expect(res.statusCode).toBe(404);
  });

  it('deactivates a user and changes capabilities, auditing both', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id, { capabilities: ['seller'] });
    const res = await t.admin('PATCH', `/admin/v1/users/${user.id}`, { status: 'deactivated', capabilities: [] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, status: 'deactivated', capabilities: [] });
    const [updated] = await auditFor(t, user.id);
    expect(updated).toMatchObject({
      action: 'user.updated',
      previous_state: { status: 'active', capabilities: ['seller'] },
      new_state: { status: 'deactivated', capabilities: [] },
    });
  });

  it('lists the users of an organization', async () => {
    const org = await createOrg(t);
    const a = await createUser(t, org.id);
    const b = await createUser(t, org.id);
    const res = await t.admin('GET', `/admin/v1/organizations/${org.id}/users`);
    expect(res.json().items.map((u: { id: string }) => u.id)).toEqual([a.id, b.id]);
  });
});

describe('API keys', () => {
  it('mints a key shown once, in the documented format', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id);
    const res = await t.admin('POST', `/admin/v1/users/${user.id}/api-keys`, { name: 'ERP sync' });
    expect(res.statusCode).toBe(201);
    const minted = res.json();
    expect(minted).toMatchObject({
      id: UUID,
      key: expect.stringMatching(/^svc_live_[A-Za-z0-9]{32}$/),
      expires_at: null,
      name: 'ERP sync',
    });
    expect(minted.prefix).toBe(minted.key.slice(0, 12));
    expect((await publicList(minted.key, org.id)).statusCode).toBe(200);
  });

  it('mints a key without a body, and with an expiry', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id);
    const bare = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/users/${user.id}/api-keys`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(bare.statusCode).toBe(201);
    const expiring = await t.admin('POST', `/admin/v1/users/${user.id}/api-keys`, { expires_at: '2031-06-30T12:00:00+02:00' });
    expect(expiring.json().expires_at).toBe('2031-06-30T10:00:00.000Z');
  });

  it('refuses an expiry that is not an ISO datetime', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id);
    for (const expires_at of ['tomorrow', '2031-06-30', 1735689600]) {
      const res = await t.admin('POST', `/admin/v1/users/${user.id}/api-keys`, { expires_at });
      expect(res.statusCode, String(expires_at)).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'expires_at']);
    }
  });

  it('never shows a secret or a hash when listing keys', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id);
    const minted = await mintKey(t, user.id);
    const res = await t.admin('GET', `/admin/v1/users/${user.id}/api-keys`);
    expect(res.statusCode).toBe(200);
    const [item] = res.json().items;
    expect(Object.keys(item).sort()).toEqual([
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'org_id',
      'prefix',
      'replaced_by',
      'revoked_at',
      'rotated_at',
      'user_id',
    ]);
    expect(res.body).not.toContain(minted.key);
    expect(res.body).not.toContain(minted.key.slice(12));
  });

  it('never writes a secret into the audit trail', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id);
    const minted = await mintKey(t, user.id);
    const rotated = (await t.admin('POST', `/admin/v1/api-keys/${minted.id}/rotate`)).json();
    const audit = await t.admin('GET', `/admin/v1/audit-events?org_id=${org.id}`);
    expect(audit.json().items.map((e: { action: string }) => e.action)).toEqual([
      'api_key.rotated',
      'api_key.minted',
      'user.created',
      'organization.created',
    ]);
    expect(audit.body).not.toContain(minted.key);
    expect(audit.body).not.toContain(rotated.key);
  });

  it('rotates a key: a new secret, the old one stops working, the successor is linked', async () => {
    const p = await createPrincipal(t);
    const res = await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/rotate`);
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(rotated).toMatchObject({ id: UUID, key: expect.stringMatching(/^svc_live_/), prefix: rotated.key.slice(0, 12) });
    expect(rotated.id).not.toBe(p.keyId);
    expect((await publicList(p.key, p.orgId)).statusCode).toBe(401);
    expect((await publicList(rotated.key, p.orgId)).statusCode).toBe(200);
    const keys = (await t.admin('GET', `/admin/v1/users/${p.userId}/api-keys`)).json().items;
    expect(keys.find((k: { id: string }) => k.id === p.keyId)).toMatchObject({ rotated_at: ISO, replaced_by: rotated.id });
  });

  it('refuses to rotate a key twice, or a revoked key (409), or an unknown one (404)', async () => {
    const p = await createPrincipal(t);
    await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/rotate`);
    expect((await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/rotate`)).statusCode).toBe(409);
    const q = await createPrincipal(t);
    await t.admin('POST', `/admin/v1/api-keys/${q.keyId}/revoke`);
    expect((await t.admin('POST', `/admin/v1/api-keys/${q.keyId}/rotate`)).statusCode).toBe(409);
    expect((await t.admin('POST', `/admin/v1/api-keys/${randomUUID()}/rotate`)).statusCode).toBe(404);
  });

  it('yields exactly one successor when one key is rotated twice at once', async () => {
    const p = await createPrincipal(t);
    const results = await Promise.all([0, 1].map(() => t.admin('POST', `/admin/v1/api-keys/${p.keyId}/rotate`)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const keys = (await t.admin('GET', `/admin/v1/users/${p.userId}/api-keys`)).json().items;
    expect(keys).toHaveLength(2);
  });

  it('revokes a key; revoking again answers the same row and audits once', async () => {
    const p = await createPrincipal(t);
    const first = await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/revoke`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ id: p.keyId, revoked_at: ISO });
    expect((await publicList(p.key, p.orgId)).statusCode).toBe(401);
    const second = await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/revoke`);
    expect(second.json().revoked_at).toBe(first.json().revoked_at);
    const revocations = (await auditFor(t, p.keyId)).filter((e) => e.action === 'api_key.revoked');
    expect(revocations).toHaveLength(1);
    expect((await t.admin('POST', `/admin/v1/api-keys/${randomUUID()}/revoke`)).statusCode).toBe(404);
  });
});

describe('vocabularies', () => {
  it.each([
    ['aircraft-types', 'A320-200'],
    ['engine-models', 'CFM56-7B'],
    ['apu-models', 'APS3200'],
  ])('lists the built-in %s', async (kind, sample) => {
    const res = await t.admin('GET', `/admin/v1/vocabularies/${kind}`);
    expect(res.statusCode).toBe(200);
    const items = res.json().items;
    expect(items.length).toBeGreaterThan(3);
    expect(items.find((i: { name: string }) => i.name.startsWith(sample))).toEqual({
      id: UUID,
      name: expect.any(String),
      manufacturer: expect.any(String),
      category: expect.anything(),
      is_active: true,
      created_at: ISO,
    });
  });

  it('refuses an unknown kind with a path literal_error', async () => {
    const res = await t.admin('GET', '/admin/v1/vocabularies/landing-gears');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ type: 'literal_error', loc: ['path', 'kind'] });
  });

  it('adds a term, trimmed, that then appears in the list', async () => {
    const res = await t.admin('POST', '/admin/v1/vocabularies/aircraft-types', {
      name: '  Test-Jet 900  ',
      manufacturer: 'Testair',
      category: 'Regional jet',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: UUID,
      name: 'Test-Jet 900',
      manufacturer: 'Testair',
      category: 'Regional jet',
      is_active: true,
      created_at: ISO,
    });
    const names = (await t.admin('GET', '/admin/v1/vocabularies/aircraft-types')).json().items.map((i: { name: string }) => i.name);
    expect(names).toContain('Test-Jet 900');
  });

  it('refuses a duplicate name of the same kind, whatever its case (409), but not of another kind', async () => {
    await t.admin('POST', '/admin/v1/vocabularies/engine-models', { name: 'Dup-Engine', manufacturer: 'X' });
    const dup = await t.admin('POST', '/admin/v1/vocabularies/engine-models', { name: 'dup-engine ', manufacturer: 'Y' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail.error_code).toBe('conflict');
    expect((await t.admin('POST', '/admin/v1/vocabularies/apu-models', { name: 'Dup-Engine', manufacturer: 'X' })).statusCode).toBe(201);
  });

  it('audits an addition as vocabulary.created with the new row, and a refused duplicate not at all', async () => {
    const res = await t.admin('POST', '/admin/v1/vocabularies/apu-models', { name: 'Audit-APU 1', manufacturer: 'Testair', is_active: false });
    expect(res.statusCode).toBe(201);
    const term = res.json();
    const dup = await t.admin('POST', '/admin/v1/vocabularies/apu-models', { name: 'audit-apu 1', manufacturer: 'Other' });
    expect(dup.statusCode).toBe(409);

    const audit = await t.admin('GET', `/admin/v1/audit-events?entity_id=${term.id}`);
    expect(audit.statusCode).toBe(200);
    expect(audit.json().items).toEqual([
      {
        id: UUID,
        org_id: null,
        action: 'vocabulary.created',
        entity_type: 'vocabulary',
        entity_id: term.id,
        previous_state: null,
        new_state: { ...term, kind: 'apu_model' },
        metadata: expect.objectContaining({ via_api: false, via_admin: true, request_id: expect.any(String) }),
        created_at: ISO,
      },
    ]);
    const byAction = (await t.admin('GET', '/admin/v1/audit-events?action=vocabulary.created&limit=1000')).json().items;
    expect(byAction.filter((e: { new_state: { name: string } }) => e.new_state.name.toLowerCase() === 'audit-apu 1')).toHaveLength(1);
  });

  it('refuses a blank name', async () => {
    const res = await t.admin('POST', '/admin/v1/vocabularies/apu-models', { name: '   ', manufacturer: 'X' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'name']);
  });
});

describe('audit events', () => {
  it('filters by entity, organization and action, newest first, within a limit', async () => {
    const org = await createOrg(t);
    const a = await createUser(t, org.id);
    const b = await createUser(t, org.id);
    await t.admin('PATCH', `/admin/v1/users/${a.id}`, { capabilities: [] });

    const byOrg = (await t.admin('GET', `/admin/v1/audit-events?org_id=${org.id}`)).json().items;
    expect(byOrg.map((e: { action: string; entity_id: string }) => [e.action, e.entity_id])).toEqual([
      ['user.updated', a.id],
      ['user.created', b.id],
      ['user.created', a.id],
      ['organization.created', org.id],
    ]);
    const byAction = (await t.admin('GET', `/admin/v1/audit-events?org_id=${org.id}&action=user.created`)).json().items;
    expect(byAction.map((e: { entity_id: string }) => e.entity_id)).toEqual([b.id, a.id]);
    const byEntity = (await t.admin('GET', `/admin/v1/audit-events?entity_id=${a.id}`)).json().items;
    expect(byEntity.map((e: { action: string }) => e.action)).toEqual(['user.updated', 'user.created']);
    const limited = (await t.admin('GET', `/admin/v1/audit-events?org_id=${org.id}&limit=1`)).json().items;
    expect(limited).toHaveLength(1);
    expect(limited[0]).toEqual({
      id: UUID,
      org_id: org.id,
      action: 'user.updated',
      entity_type: 'user',
      entity_id: a.id,
      previous_state: expect.any(Object),
      new_state: { capabilities: [] },
      metadata: expect.objectContaining({ via_api: false }),
      created_at: ISO,
    });
  });

  it('refuses malformed filters', async () => {
    for (const query of ['entity_id=abc', 'org_id=1', 'limit=0', 'limit=1001', 'limit=ten']) {
      const res = await t.admin('GET', `/admin/v1/audit-events?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().detail[0].loc[0]).toBe('query');
    }
  });
});

describe('security alerts', () => {
  it('filters alerts by organization', async () => {
    const p = await createPrincipal(t);
    const q = await createPrincipal(t);
    await publicList(p.key, q.orgId);
    await publicList(q.key, p.orgId);
    const forP = (await t.admin('GET', `/admin/v1/alerts?org_id=${p.orgId}`)).json().items;
    expect(forP).toEqual([
      expect.objectContaining({ kind: 'organization_mismatch', org_id: p.orgId, api_key_id: p.keyId, created_at: ISO }),
    ]);
    const all = (await t.admin('GET', '/admin/v1/alerts')).json().items;
    expect(all.length).toBeGreaterThanOrEqual(2);
  });
});

describe('jobs', () => {
  it('runs the periodic jobs on demand and reports what they did', async () => {
    const p = await createPrincipal(t);
    await t.admin('PATCH', `/admin/v1/users/${p.userId}`, { status: 'deactivated' });
    const res = await t.admin('POST', '/admin/v1/jobs/run');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ archived_teardowns: expect.any(Number), revoked_keys: expect.any(Number), deleted_files: expect.any(Number), purged_idempotency_keys: expect.any(Number), purged_events: expect.any(Number), purged_webhook_deliveries: expect.any(Number) });
    expect(res.json().revoked_keys).toBeGreaterThanOrEqual(1);
    expect((await t.admin('POST', '/admin/v1/jobs/run')).json().revoked_keys).toBe(0);
  });
});
