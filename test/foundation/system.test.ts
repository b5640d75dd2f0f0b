import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, backend, createTestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('operational routes', () => {
  it('answers /healthz without authentication', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz when database and storage are reachable', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', storage: 'ok', redis: 'not_configured', auth_cache: backend() === 'postgres' ? 'live' : 'local' },
    });
  });

  it('answers an unknown path with 404 {"detail": "Not Found"}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not Found' });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/healthz' });
    expect(res.statusCode).toBe(405);
    expect(res.json()).toEqual({ detail: 'Method Not Allowed' });
    expect(res.headers.allow).toContain('GET');
  });

  it('echoes a safe x-request-id and replaces an unsafe one', async () => {
    const echoed = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'erp-sync.42:a_b-c' } });
    expect(echoed.headers['x-request-id']).toBe('erp-sync.42:a_b-c');
    const replaced = await t.app.inject({ method: 'GET', url: '/nothing', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
