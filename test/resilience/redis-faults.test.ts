// Redis faults through a TCP proxy the test controls. Redis only carries the shared rate-limit
// windows, so its outage must cost nothing but the sharing: requests pass without waiting, each
// instance keeps counting (and refusing) on its own, /readyz says so, and the shared windows come
// back by themselves with the connection.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp } from '../helpers/app.js';
import { type Principal, createSeller } from '../helpers/factories.js';
import { type FaultProxy, startFaultProxy, throughProxy } from '../helpers/fault-proxy.js';

const LIMIT = 10;
const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('Redis faults', () => {
  let proxy: FaultProxy;
  let t: TestApp;
  let seller: Principal;

  beforeAll(async () => {
    const direct = new URL(redisUrl as string);
    proxy = await startFaultProxy({ host: direct.hostname, port: Number(direct.port || 6379) });
    t = await createTestApp({
      configuredLimiter: true,
      env: { REDIS_URL: throughProxy(redisUrl as string, proxy), REDIS_TIMEOUT_MS: '200', RATE_LIMIT_PER_MINUTE: String(LIMIT) },
    });
    seller = await createSeller(t);
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  const list = () => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers });
  const ready = async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).json().checks.redis;

  it('fails open to a local window while Redis is black-holed, and shares the window again once it is back', async () => {
    for (let i = 1; i <= 3; i++) expect((await list()).headers['ratelimit-remaining']).toBe(String(LIMIT - i));
    expect(await ready()).toBe('ok');

    proxy.blackhole();
    try {
      const started = Date.now();
      const first = await list();
      // The only request that waits is the one that finds Redis silent, and it waits one command deadline.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-limit']).toBe(String(LIMIT));
      // The local window still enforces the limit: this instance alone allows LIMIT requests a minute.
      const statuses = [first.statusCode];
      for (let i = 1; i <= LIMIT; i++) statuses.push((await list()).statusCode);
      expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
      expect(await ready()).toBe('unavailable');
      const readiness = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(readiness.statusCode).toBe(200); // the service still answers right without Redis
    } finally {
      proxy.restore();
    }

    // Reconnects by itself; the shared window (3 spent) is used again.
    for (let i = 0; i < 100 && (await ready()) !== 'ok'; i++) await sleep(100);
    expect(await ready()).toBe('ok');
    const back = await list();
    expect(back.statusCode).toBe(200);
    expect(back.headers['ratelimit-remaining']).toBe(String(LIMIT - 4));
  });
});
