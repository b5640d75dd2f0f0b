// Rate limits (decisions.md section 1): bucket A per key (step 5), the per-IP budget for
// unauthenticated failures (steps 2-4), the RateLimit-* headers, and a budget shared through Redis.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { redisRateLimitStore } from '../../src/http/rate-limit.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { createPrincipal, headersFor, type Principal } from '../helpers/factories.js';

const LIMIT = 5;
const AUTH_FAILURE_LIMIT = 3;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), AUTH_FAILURE_LIMIT_PER_MINUTE: String(AUTH_FAILURE_LIMIT) } });
});
afterAll(async () => {
  await t.close();
});

// Each test uses its own client address, so that the per-IP budgets of tests never mix.
let lastIp = 0;
const freshIp = () => `10.1.0.${++lastIp}`;

const list = (headers: Record<string, string>, remoteAddress = '10.0.0.1') =>
  t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers, remoteAddress });

function expectTooMany(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json()).toEqual({ detail: expect.objectContaining({ error_code: 'too_many_requests', message: expect.any(String) }) });
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

function rateHeaders(res: LightMyRequestResponse) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
  };
}

describe('per-key budget', () => {
  it(`answers the ${LIMIT + 1}th request of a minute with 429 and Retry-After`, async () => {
    const p = await createPrincipal(t);
    for (let i = 1; i <= LIMIT; i++) {
      const res = await list(p.headers);
      expect(res.statusCode).toBe(200);
      const h = rateHeaders(res);
      expect(h.limit).toBe(String(LIMIT));
      expect(h.remaining).toBe(String(LIMIT - i));
      expect(Number(h.reset)).toBeGreaterThanOrEqual(1);
      expect(Number(h.reset)).toBeLessThanOrEqual(60);
    }
    const refused = await list(p.headers);
    expectTooMany(refused);
    expect(rateHeaders(refused)).toMatchObject({ limit: String(LIMIT), remaining: '0' });
    expect(refused.headers['x-request-id']).toBeTruthy();
  });

  it('keeps one budget per key: another key of the same organization still passes', async () => {
    const p = await createPrincipal(t);
    const colleague = await createPrincipal(t, { orgId: p.orgId });
    for (let i = 0; i <= LIMIT; i++) await list(p.headers);
    expectTooMany(await list(p.headers));
    expect((await list(colleague.headers)).statusCode).toBe(200);
  });

  it('counts refused requests of a known key: five 403s spend the budget', async () => {
    const p = await createPrincipal(t, { capabilities: [] });
    for (let i = 0; i < LIMIT; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/public/v1/teardowns', headers: p.headers, payload: {} });
      expect(res.statusCode).toBe(403);
    }
    expectTooMany(await list(p.headers));
  });

  it('checks the budget before expiry: an expired key is refused with 429 once it has spent it', async () => {
    const p = await createPrincipal(t, { key: { expires_at: new Date(t.clock.now().getTime() - 1000).toISOString() } });
    for (let i = 0; i < LIMIT; i++) expect((await list(p.headers)).json().detail.error_code).toBe('api_key_expired');
    expectTooMany(await list(p.headers));
  });

  it('sends the RateLimit headers on refusals that come after the key is known', async () => {
    const p = await createPrincipal(t, { org: { api_access_enabled: false } });
    const disabled = await list(p.headers);
    expect(disabled.statusCode).toBe(403);
    expect(rateHeaders(disabled)).toEqual({ limit: String(LIMIT), remaining: String(LIMIT - 1), reset: expect.stringMatching(/^\d+$/) });

    const mismatch = await list(headersFor(p.key, randomUUID()));
    expect(mismatch.json().detail.error_code).toBe('organization_mismatch');
    expect(rateHeaders(mismatch)).toMatchObject({ limit: String(LIMIT), remaining: String(LIMIT - 2) });
  });

  it('sends the IETF draft RateLimit-Policy and RateLimit fields beside them, counting down to the 429', async () => {
    const p = await createPrincipal(t);
    const seen: { policy: unknown; fields: unknown; status: number }[] = [];
    for (let i = 1; i <= LIMIT + 1; i++) {
      const res = await list(p.headers);
      seen.push({ policy: res.headers['ratelimit-policy'], fields: res.headers.ratelimit, status: res.statusCode });
    }
    for (const { policy } of seen) expect(policy).toBe(`"minute";q=${LIMIT};w=60`);
    const remaining = seen.map(({ fields }) => /^"minute";r=(\d+);t=(\d+)$/.exec(String(fields)));
    expect(remaining.map((m) => Number(m?.[1]))).toEqual([...Array.from({ length: LIMIT }, (_, i) => LIMIT - i - 1), 0]);
    for (const m of remaining) expect(Number(m?.[2])).toBeGreaterThanOrEqual(1);
    expect(seen.at(-1)?.status).toBe(429);
  });

  it('sends no RateLimit headers before the key is known', async () => {
    const res = await list({}, freshIp());
    expect(res.statusCode).toBe(401);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    expect(res.headers.ratelimit).toBeUndefined();
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });
});

describe('per-IP budget for unauthenticated failures', () => {
  const unknownKey = (orgId: string) => headersFor(`svc_live_${randomUUID().replace(/-/g, '')}`, orgId);

  it('answers 429 instead of 401 once an address has failed too often', async () => {
    const ip = freshIp();
    const org = randomUUID();
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      expect((await list(unknownKey(org), ip)).json().detail.error_code).toBe('invalid_api_key');
    }
    expectTooMany(await list(unknownKey(org), ip));
  });

  it('counts malformed headers (steps 2 and 3) in the same budget', async () => {
    const ip = freshIp();
    await list({}, ip);
    await list({ authorization: 'Bearer svc_live_abc' }, ip);
    await list(unknownKey(randomUUID()), ip);
    expectTooMany(await list({}, ip));
  });

  it('never refuses a valid key from an address that exhausted its failure budget', async () => {
    const ip = freshIp();
    const p: Principal = await createPrincipal(t);
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) await list(unknownKey(p.orgId), ip);
    expectTooMany(await list(unknownKey(p.orgId), ip));
    expect((await list(p.headers, ip)).statusCode).toBe(200);
  });

  it('keeps addresses apart: another address still gets its 401', async () => {
    const ip = freshIp();
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) await list({}, ip);
    expectTooMany(await list({}, ip));
    expect((await list({}, freshIp())).statusCode).toBe(401);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('shared budget through Redis', () => {
  it('lets two instances with one Redis limiter spend one budget per key', async () => {
    const url = process.env.TEST_REDIS_URL as string;
    const prefix = `rl:test-shared:${randomUUID()}:`;
    const config = loadConfig({
      DATA_DIR: t.dataDir,
      ADMIN_TOKEN,
      JOBS_INTERVAL_SECONDS: '0',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
    });
    const instances = await Promise.all(
      [0, 1].map(() =>
        buildApp(config, { database: t.database, clock: t.clock, logger: false, limiter: redisRateLimitStore(url, { prefix }) }),
      ),
    );
    try {
      const p = await createPrincipal(t);
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i++) {
        const res = await instances[i % 2]?.inject({ method: 'GET', url: '/public/v1/teardowns', headers: p.headers });
        statuses.push(res?.statusCode ?? 0);
        if (res?.statusCode === 200) {
          expect(res.headers['ratelimit-remaining']).toBe(String(LIMIT - i - 1));
          expect(res.headers.ratelimit).toMatch(new RegExp(`^"minute";r=${LIMIT - i - 1};t=\\d+$`));
        }
      }
      expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    } finally {
      await Promise.all(instances.map((app) => app.close()));
    }
  });
});

describe('a limiter that fails', () => {
  // The store's failure, not the budget: the request passes uncounted and carries no RateLimit
  // headers (there is no count to report), whether the store throws at once or its promise rejects.
  it.each([
    [
      'throws',
      () => {
        throw new Error('limiter down');
      },
    ],
    ['rejects', () => Promise.reject(new Error('limiter down'))],
  ])('lets the request pass uncounted when the store %s', async (_how, hit) => {
    const failing = await createTestApp({ limiter: { hit, close: async () => {} } });
    try {
      const p = await createPrincipal(failing);
      const res = await failing.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: p.headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
      expect(res.headers.ratelimit).toBeUndefined();
    } finally {
      await failing.close();
    }
  });
});
