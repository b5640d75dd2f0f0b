// The principal cache: changes made elsewhere reach an instance within AUTH_CACHE_SECONDS; changes
// made through its own admin API apply at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp } from '../helpers/app.js';
import { createSeller } from '../helpers/factories.js';

const list = (t: TestApp, headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers });

/** Revokes a key the way another instance or the CLI would: straight in the database. */
const revokeElsewhere = (t: TestApp, keyId: string) =>
  t.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).execute();

describe('with the default cache (5 seconds)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps honouring a key revoked elsewhere until the cache entry is 5 seconds old, then refuses it', async () => {
    const seller = await createSeller(t);
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    await revokeElsewhere(t, seller.keyId);

    t.clock.advance(4_000);
    expect((await list(t, seller.headers)).statusCode).toBe(200);

    t.clock.advance(1_001);
    const refused = await list(t, seller.headers);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail.error_code).toBe('invalid_api_key');
  });

  it('applies a change made through its own admin API at once', async () => {
    const seller = await createSeller(t);
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    expect((await t.admin('PATCH', `/admin/v1/organizations/${seller.orgId}`, { api_access_enabled: false })).statusCode).toBe(200);
    const refused = await list(t, seller.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail.error_code).toBe('api_access_disabled');
  });

  it('never caches an unknown key: a key minted afterwards works on its first request', async () => {
    const seller = await createSeller(t);
    const unknown = { ...seller.headers, authorization: 'Bearer svc_live_unknownunknownunknownunknown12' };
    expect((await list(t, unknown)).statusCode).toBe(401);
    expect((await list(t, seller.headers)).statusCode).toBe(200);
  });
});

describe('with AUTH_CACHE_SECONDS=0', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { AUTH_CACHE_SECONDS: '0' } });
  });
  afterAll(() => t.close());

  it('refuses a key revoked elsewhere on the very next request', async () => {
    const seller = await createSeller(t);
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    await revokeElsewhere(t, seller.keyId);
    expect((await list(t, seller.headers)).statusCode).toBe(401);
  });
});
