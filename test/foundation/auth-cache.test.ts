// The principal cache. On PostgreSQL a change made anywhere (another instance, the CLI, plain SQL)
// reaches the instance within a second, whatever AUTH_CACHE_SECONDS says (NOTIFY auth_changed). On
// embedded PGlite there is no other process, and AUTH_CACHE_SECONDS bounds an entry's life. Changes
// made through the instance's own admin API apply at once on both.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, backend, createTestApp } from '../helpers/app.js';
import { createSeller } from '../helpers/factories.js';

const list = (t: TestApp, headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers });

/** Revokes a key the way another instance or the CLI would: straight in the database. */
const revokeElsewhere = (t: TestApp, keyId: string) =>
  t.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).execute();

describe.runIf(backend() === 'pglite')('embedded: with AUTH_CACHE_SECONDS=5', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { AUTH_CACHE_SECONDS: '5' } });
  });
  afterAll(() => t.close());

  it('keeps honouring a key revoked behind its back until the cache entry is 5 seconds old, then refuses it', async () => {
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
});

describe.runIf(backend() === 'postgres')('PostgreSQL: with AUTH_CACHE_SECONDS=300', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { AUTH_CACHE_SECONDS: '300' } });
  });
  afterAll(() => t.close());

  it('refuses a key revoked straight in the database within one second, long before the entry expires', async () => {
    const seller = await createSeller(t);
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    // Cached: the same request again does not need the database to answer 200.
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    await revokeElsewhere(t, seller.keyId);
    await sleep(1000);
    const refused = await list(t, seller.headers);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail.error_code).toBe('invalid_api_key');
  });

  it('keeps serving from the cache while nothing changed (the last_used_at touch notifies nobody)', async () => {
    const seller = await createSeller(t);
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    const before = t.app.ctx.principals.size;
    expect(before).toBeGreaterThan(0);
    t.clock.advance(61_000); // past the one-minute touch: the request writes last_used_at
    expect((await list(t, seller.headers)).statusCode).toBe(200);
    await sleep(300);
    expect(t.app.ctx.principals.size).toBe(before);
  });
});

describe('changes through the admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

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
