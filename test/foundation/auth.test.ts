// The API-key check chain: every row of the spec's Authentication table and the order of
// decisions.md section 1, against GET /public/v1/teardowns (any key) and POST (seller only).
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createOrg, createPrincipal, createSeller, createUser, headersFor, mintKey, type Principal } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const list = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers });
const create = (headers: Record<string, string>, payload: unknown = {}) =>
  t.app.inject({ method: 'POST', url: '/public/v1/teardowns', headers, payload: payload as object });

function expectRefusal(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toEqual({ detail: expect.objectContaining({ error_code: code, message: expect.any(String) }) });
  return body.detail as Record<string, unknown>;
}

const patchOrg = async (orgId: string, body: Record<string, unknown>) =>
  expect((await t.admin('PATCH', `/admin/v1/organizations/${orgId}`, body)).statusCode).toBe(200);
const patchUser = async (userId: string, body: Record<string, unknown>) =>
  expect((await t.admin('PATCH', `/admin/v1/users/${userId}`, body)).statusCode).toBe(200);
const minuteAgo = () => new Date(t.clock.now().getTime() - 60_000).toISOString();

async function metricsText() {
  return (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
}

function counterValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('a usable key', () => {
  it('lists teardowns with a live key of an active organization', async () => {
    const p = await createPrincipal(t, { capabilities: [] });
    const res = await list(p.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ items: [], total: 0, page: 1, per_page: 20, pages: 0 });
  });

  it('accepts the Bearer scheme in any case', async () => {
    const p = await createPrincipal(t);
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const res = await list({ ...p.headers, authorization: `${scheme} ${p.key}` });
      expect(res.statusCode, scheme).toBe(200);
    }
  });

  it('accepts the organization id in upper case', async () => {
    const p = await createPrincipal(t);
    expect((await list({ ...p.headers, 'x-organization-id': p.orgId.toUpperCase() })).statusCode).toBe(200);
  });

  it('accepts a key whose expiry is still ahead', async () => {
    const p = await createPrincipal(t, { key: { expires_at: new Date(t.clock.now().getTime() + 3_600_000).toISOString() } });
    expect((await list(p.headers)).statusCode).toBe(200);
  });

  it("lets a seller's key through to validation: an empty create body is a 422", async () => {
    const p = await createSeller(t);
    const res = await create(p.headers, {});
    expect(res.statusCode).toBe(422);
    expect(Array.isArray(res.json().detail)).toBe(true);
  });
});

describe('Authorization header (401 missing_or_malformed_authorization)', () => {
  let p: Principal;
  beforeAll(async () => {
    p = await createPrincipal(t);
  });

  it('refuses a request without Authorization', async () => {
    expectRefusal(await list({ 'x-organization-id': p.orgId }), 401, 'missing_or_malformed_authorization');
  });

  it('refuses an empty Authorization', async () => {
    expectRefusal(await list({ authorization: '', 'x-organization-id': p.orgId }), 401, 'missing_or_malformed_authorization');
  });

  it('refuses a Bearer token without the svc_live_ prefix (a web application token)', async () => {
    const webToken = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    expectRefusal(
      await list({ authorization: `Bearer ${webToken}`, 'x-organization-id': p.orgId }),
      401,
      'missing_or_malformed_authorization',
    );
    expectRefusal(
      await list({ authorization: `Bearer ${p.key.replace('svc_live_', 'svc_test_')}`, 'x-organization-id': p.orgId }),
      401,
      'missing_or_malformed_authorization',
    );
  });

  it('refuses "Bearer " with nothing after it', async () => {
    expectRefusal(await list({ authorization: 'Bearer ', 'x-organization-id': p.orgId }), 401, 'missing_or_malformed_authorization');
  });

  it('refuses another scheme carrying a live key', async () => {
    expectRefusal(await list({ authorization: `Basic ${p.key}`, 'x-organization-id': p.orgId }), 401, 'missing_or_malformed_authorization');
    expectRefusal(await list({ authorization: p.key, 'x-organization-id': p.orgId }), 401, 'missing_or_malformed_authorization');
  });

  it('answers the refusal with an x-request-id', async () => {
    const res = await list({ 'x-request-id': 'probe-1' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-request-id']).toBe('probe-1');
  });
});

describe('X-Organization-Id header (400 invalid_organization_header)', () => {
  let p: Principal;
  beforeAll(async () => {
    p = await createPrincipal(t);
  });

  it('refuses a request without X-Organization-Id', async () => {
    expectRefusal(await list({ authorization: `Bearer ${p.key}` }), 400, 'invalid_organization_header');
  });

  it('refuses an X-Organization-Id that is not a UUID', async () => {
    for (const value of ['', 'acme', '12345', `${p.orgId}x`, p.orgId.replace(/-/g, '')]) {
      expectRefusal(await list({ authorization: `Bearer ${p.key}`, 'x-organization-id': value }), 400, 'invalid_organization_header');
    }
  });

  it('checks Authorization first: a malformed Authorization beats a bad organization header', async () => {
    expectRefusal(await list({ authorization: 'Bearer nope', 'x-organization-id': 'nope' }), 401, 'missing_or_malformed_authorization');
  });

  it('checks the header before the key: an unknown key with a bad header is a 400', async () => {
    expectRefusal(
      await list({ authorization: 'Bearer svc_live_unknownunknownunknownunknown12', 'x-organization-id': 'nope' }),
      400,
      'invalid_organization_header',
    );
  });
});

describe('key lookup (401 invalid_api_key)', () => {
  it('refuses an unknown well-formed key', async () => {
    const org = await createOrg(t);
    expectRefusal(await list(headersFor('svc_live_0123456789abcdefghijABCDEFGHIJ', org.id)), 401, 'invalid_api_key');
  });

  it('refuses a revoked key', async () => {
    const p = await createPrincipal(t);
    expect((await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/revoke`)).statusCode).toBe(200);
    expectRefusal(await list(p.headers), 401, 'invalid_api_key');
  });

  it('refuses the old secret of a rotated key and accepts the new one', async () => {
    const p = await createPrincipal(t);
    const rotated = await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/rotate`);
    expect(rotated.statusCode).toBe(200);
    expectRefusal(await list(p.headers), 401, 'invalid_api_key');
    expect((await list(headersFor(rotated.json().key, p.orgId))).statusCode).toBe(200);
  });

  it('refuses a revoked key even when it is also expired and foreign (one code, no probing)', async () => {
    const p = await createPrincipal(t, { key: { expires_at: minuteAgo() } });
    await t.admin('POST', `/admin/v1/api-keys/${p.keyId}/revoke`);
    expectRefusal(await list(headersFor(p.key, randomUUID())), 401, 'invalid_api_key');
  });
});

describe('key expiry (401 api_key_expired)', () => {
  it('refuses a key past its expires_at', async () => {
    const p = await createPrincipal(t, { key: { expires_at: minuteAgo() } });
    expectRefusal(await list(p.headers), 401, 'api_key_expired');
  });

  it('refuses a key that expires exactly now', async () => {
    const p = await createPrincipal(t, { key: { expires_at: t.clock.now().toISOString() } });
    expectRefusal(await list(p.headers), 401, 'api_key_expired');
  });

  it('checks expiry before the organization: an expired key with a foreign header is api_key_expired', async () => {
    const p = await createPrincipal(t, { key: { expires_at: minuteAgo() } });
    expectRefusal(await list(headersFor(p.key, randomUUID())), 401, 'api_key_expired');
  });
});

describe('organization mismatch (403 organization_mismatch)', () => {
  it('refuses a key presented with another organization and records a security alert', async () => {
    const p = await createPrincipal(t);
    const other = await createOrg(t);
    expectRefusal(await list(headersFor(p.key, other.id)), 403, 'organization_mismatch');

    const alerts = await t.admin('GET', `/admin/v1/alerts?org_id=${p.orgId}`);
    expect(alerts.statusCode).toBe(200);
    expect(alerts.json().items).toEqual([
      expect.objectContaining({
        kind: 'organization_mismatch',
        org_id: p.orgId,
        api_key_id: p.keyId,
        details: expect.objectContaining({ claimed_org_id: other.id, api_key_prefix: p.key.slice(0, 12) }),
      }),
    ]);
    expect(JSON.stringify(alerts.json())).not.toContain(p.key);
  });

  it('records every occurrence, newest first, and counts them in /metrics', async () => {
    const before = await metricsText();
    const p = await createPrincipal(t);
    const claimed = [randomUUID(), randomUUID()];
    for (const org of claimed) expectRefusal(await list(headersFor(p.key, org)), 403, 'organization_mismatch');

    const items = (await t.admin('GET', `/admin/v1/alerts?org_id=${p.orgId}`)).json().items;
    expect(items.map((a: { details: { claimed_org_id: string } }) => a.details.claimed_org_id)).toEqual([...claimed].reverse());

    const after = await metricsText();
    for (const series of ['security_alerts_total{kind="organization_mismatch"}', 'auth_failures_total{code="organization_mismatch"}']) {
      expect(counterValue(after, series) - counterValue(before, series), series).toBe(2);
    }
  });

  it('checks the organization before its status: a mismatch beats org_inactive', async () => {
    const p = await createPrincipal(t, { org: { account_status: 'inactive' } });
    expectRefusal(await list(headersFor(p.key, randomUUID())), 403, 'organization_mismatch');
  });
});

describe('organization status (403 org_inactive, org_churned)', () => {
  it('refuses a key of an inactive organization', async () => {
    const p = await createPrincipal(t, { org: { account_status: 'inactive' } });
    expectRefusal(await list(p.headers), 403, 'org_inactive');
  });

  it('refuses a key of a churned organization', async () => {
    const p = await createPrincipal(t, { org: { account_status: 'churned' } });
    expectRefusal(await list(p.headers), 403, 'org_churned');
  });

  it('checks the account before the subscription: inactive and past_due is org_inactive', async () => {
    const p = await createPrincipal(t, { org: { account_status: 'inactive', subscription_status: 'past_due' } });
    expectRefusal(await list(p.headers), 403, 'org_inactive');
  });
});

describe('subscription (403 subscription_required)', () => {
  it.each(['past_due', 'canceled', 'expired', 'rejected', 'pending_payment', 'pending_approval'])(
    'refuses a key of an organization whose subscription is %s, naming the status',
    async (status) => {
      const p = await createPrincipal(t, { org: { subscription_status: status } });
      const detail = expectRefusal(await list(p.headers), 403, 'subscription_required');
      expect(detail.subscription_status).toBe(status);
    },
  );

  it('lets a trialing organization through', async () => {
    const p = await createPrincipal(t, { org: { subscription_status: 'trialing' } });
    expect((await list(p.headers)).statusCode).toBe(200);
  });

  it('answers subscription_required when API access is also off', async () => {
    const p = await createPrincipal(t, { org: { subscription_status: 'canceled', api_access_enabled: false } });
    const detail = expectRefusal(await list(p.headers), 403, 'subscription_required');
    expect(detail.subscription_status).toBe('canceled');
  });

  it('takes effect at once when the subscription lapses and when it is renewed', async () => {
    const p = await createPrincipal(t);
    await patchOrg(p.orgId, { subscription_status: 'past_due' });
    expectRefusal(await list(p.headers), 403, 'subscription_required');
    await patchOrg(p.orgId, { subscription_status: 'active' });
    expect((await list(p.headers)).statusCode).toBe(200);
  });
});

describe('API access (403 api_access_disabled)', () => {
  it('refuses a key of an organization whose API access is off', async () => {
    const p = await createPrincipal(t, { org: { api_access_enabled: false } });
    expectRefusal(await list(p.headers), 403, 'api_access_disabled');
  });

  it('lets the same key work again once API access is re-enabled, without rotation', async () => {
    const p = await createPrincipal(t);
    await patchOrg(p.orgId, { api_access_enabled: false });
    expectRefusal(await list(p.headers), 403, 'api_access_disabled');
    await patchOrg(p.orgId, { api_access_enabled: true });
    expect((await list(p.headers)).statusCode).toBe(200);
  });

  it('checks API access before the minter: access off and minter deactivated is api_access_disabled', async () => {
    const p = await createPrincipal(t, { org: { api_access_enabled: false } });
    await patchUser(p.userId, { status: 'deactivated' });
    expectRefusal(await list(p.headers), 403, 'api_access_disabled');
  });
});

describe('key minter (403 api_key_creator_revoked)', () => {
  it('refuses the key of a deactivated minter until the job revokes it, then answers invalid_api_key', async () => {
    const p = await createPrincipal(t);
    const colleague = await createPrincipal(t, { orgId: p.orgId });
    await patchUser(p.userId, { status: 'deactivated' });
    expectRefusal(await list(p.headers), 403, 'api_key_creator_revoked');

    const run = await t.admin('POST', '/admin/v1/jobs/run');
    expect(run.statusCode).toBe(200);
    expect(run.json().revoked_keys).toBeGreaterThanOrEqual(1);
    expectRefusal(await list(p.headers), 401, 'invalid_api_key');

    // The revocation is for good, and it touched only that minter's keys.
    await patchUser(p.userId, { status: 'active' });
    expectRefusal(await list(p.headers), 401, 'invalid_api_key');
    expect((await list(colleague.headers)).statusCode).toBe(200);
    const keys = (await t.admin('GET', `/admin/v1/users/${p.userId}/api-keys`)).json().items;
    expect(keys).toEqual([expect.objectContaining({ id: p.keyId, revoked_at: expect.any(String) })]);
  });

  it('lets the key work again if the minter is reactivated before the job runs', async () => {
    const p = await createPrincipal(t);
    await patchUser(p.userId, { status: 'deactivated' });
    expectRefusal(await list(p.headers), 403, 'api_key_creator_revoked');
    await patchUser(p.userId, { status: 'active' });
    expect((await list(p.headers)).statusCode).toBe(200);
  });
});

describe('capability (403 insufficient_capability)', () => {
  it('refuses a create by a key whose minter lacks seller, and still lets it read', async () => {
    const p = await createPrincipal(t, { capabilities: [] });
    const detail = expectRefusal(await create(p.headers, {}), 403, 'insufficient_capability');
    expect(detail.required).toBe('seller');
    expect((await list(p.headers)).statusCode).toBe(200);
  });

  it('refuses an admin-only minter too: admin does not imply seller', async () => {
    const p = await createPrincipal(t, { capabilities: ['admin'] });
    expectRefusal(await create(p.headers, {}), 403, 'insufficient_capability');
  });

  it('takes effect when the capability is granted', async () => {
    const p = await createPrincipal(t, { capabilities: [] });
    expectRefusal(await create(p.headers, {}), 403, 'insufficient_capability');
    await patchUser(p.userId, { capabilities: ['seller'] });
    expect((await create(p.headers, {})).statusCode).toBe(422);
  });

  it('checks the minter before the capability: deactivated and not a seller is api_key_creator_revoked', async () => {
    const p = await createPrincipal(t, { capabilities: [] });
    await patchUser(p.userId, { status: 'deactivated' });
    expectRefusal(await create(p.headers, {}), 403, 'api_key_creator_revoked');
  });

  it('refuses before reading the body: a non-seller sending malformed JSON gets the 403', async () => {
    const p = await createPrincipal(t, { capabilities: [] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/v1/teardowns',
      headers: { ...p.headers, 'content-type': 'application/json' },
      payload: '{"asset_type": ',
    });
    expectRefusal(res, 403, 'insufficient_capability');
  });
});

describe('key bookkeeping', () => {
  it('records when a key was last used', async () => {
    const org = await createOrg(t);
    const user = await createUser(t, org.id);
    const key = await mintKey(t, user.id);
    expect((await list(headersFor(key.key, org.id))).statusCode).toBe(200);
    let lastUsed: string | null = null;
    for (let i = 0; i < 50 && !lastUsed; i++) {
      lastUsed = (await t.admin('GET', `/admin/v1/users/${user.id}/api-keys`)).json().items[0].last_used_at;
      if (!lastUsed) await new Promise((r) => setTimeout(r, 20));
    }
    expect(lastUsed).toBe(t.clock.now().toISOString());
  });

  it('counts every refusal in auth_failures_total by code', async () => {
    const before = await metricsText();
    await list({});
    await list({ authorization: 'Bearer svc_live_abc' });
    const after = await metricsText();
    const series = 'auth_failures_total{code="missing_or_malformed_authorization"}';
    expect(counterValue(after, series) - counterValue(before, series)).toBe(1);
    const invalid = 'auth_failures_total{code="invalid_organization_header"}';
    expect(counterValue(after, invalid) - counterValue(before, invalid)).toBe(1);
  });
});
