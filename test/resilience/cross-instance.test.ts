// Two instances on one PostgreSQL database, as behind a load balancer: a change made through one
// instance's admin API (revocation, organization churn, cancelled subscription, deactivated minter)
// is refused by the other within one second, although the other had the key cached for 300 s.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, backend, createPostgresDatabase, createTestApp } from '../helpers/app.js';
import { type Principal, createSeller } from '../helpers/factories.js';

describe.runIf(backend() === 'postgres')('two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    a = await createTestApp({ postgres: database, env: { AUTH_CACHE_SECONDS: '300' } });
    b = await createTestApp({ postgres: { url: database.url, drop: async () => {} }, env: { AUTH_CACHE_SECONDS: '300' } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const listOn = (t: TestApp, p: Principal) => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: p.headers });

  async function cachedOnB(): Promise<Principal> {
    const seller = await createSeller(a);
    expect((await listOn(b, seller)).statusCode).toBe(200);
    expect(b.app.ctx.principals.size).toBeGreaterThan(0);
    return seller;
  }

  const changes: [string, (p: Principal) => Promise<{ statusCode: number }>, number, string][] = [
    ['a revoked key', (p) => a.admin('POST', `/admin/v1/api-keys/${p.keyId}/revoke`), 401, 'invalid_api_key'],
    ['a rotated key', (p) => a.admin('POST', `/admin/v1/api-keys/${p.keyId}/rotate`), 401, 'invalid_api_key'],
    [
      'a churned organization',
      (p) => a.admin('PATCH', `/admin/v1/organizations/${p.orgId}`, { account_status: 'churned' }),
      403,
      'org_churned',
    ],
    [
      'a cancelled subscription',
      (p) => a.admin('PATCH', `/admin/v1/organizations/${p.orgId}`, { subscription_status: 'canceled' }),
      403,
      'subscription_required',
    ],
    [
      'a deactivated minter',
      (p) => a.admin('PATCH', `/admin/v1/users/${p.userId}`, { status: 'deactivated' }),
      403,
      'api_key_creator_revoked',
    ],
    ['a lost capability', (p) => a.admin('PATCH', `/admin/v1/users/${p.userId}`, { capabilities: [] }), 403, 'insufficient_capability'],
  ];

  for (const [what, change, status, code] of changes) {
    it(`refuses ${what} changed through the other instance within one second`, async () => {
      const seller = await cachedOnB();
      expect((await change(seller)).statusCode).toBe(200);
      await sleep(1000);
      // A write, so that the capability change is visible too.
      const res = await b.app.inject({
        method: 'DELETE',
        url: '/public/v1/teardowns/00000000-0000-4000-8000-000000000000',
        headers: seller.headers,
      });
      expect(res.statusCode).toBe(status);
      expect(res.json().detail.error_code).toBe(code);
    });
  }
});
