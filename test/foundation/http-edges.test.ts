// Edges of the HTTP surface: absurd page numbers, unusual methods, keys that are names of
// Object.prototype members, and the security headers every answer carries.
import { METHODS } from 'node:http';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createListing } from '../helpers/listings.js';
import { multipart } from '../helpers/multipart.js';

const MAX_JSON_BYTES = 4096;

let t: TestApp;
let seller: Principal;
let listingId: string;
beforeAll(async () => {
  t = await createTestApp({ env: { MAX_JSON_BYTES: String(MAX_JSON_BYTES) } });
  seller = await createSeller(t);
  listingId = (await createListing(t, seller)).id;
});
afterAll(async () => {
  await t.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const json = { 'content-type': 'application/json' };

describe('page numbers far past the end', () => {
  it.each(['sales-lease-exchange', 'teardowns'])('answers an empty page of /%s for page=10^18, not a 500', async (path) => {
    const res = await t.app.inject({ method: 'GET', url: `/public/v1/${path}?page=1000000000000000000`, headers: seller.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ items: [], page: 1e18, pages: expect.any(Number) });
  });

  it.each(['1e400', 'Infinity', '-Infinity'])('refuses page=%s (not a finite number) with a 422 item', async (page) => {
    for (const path of ['sales-lease-exchange', 'teardowns']) {
      const res = await t.app.inject({ method: 'GET', url: `/public/v1/${path}?page=${page}`, headers: seller.headers });
      expect(res.statusCode, `${path} ${page}`).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'page']);
    }
  });
});

describe('unusual methods', () => {
  const others = METHODS.filter((m) => !['GET', 'HEAD', 'POST', 'CONNECT'].includes(m));

  it('answers every other method Node accepts with 405 and Allow on a known path, 404 elsewhere', async () => {
    for (const method of others) {
      const send = (url: string) =>
        t.app.inject({ method: method as InjectOptions['method'], url, headers: { ...seller.headers, 'content-type': 'text/xml' }, payload: '<x/>' });
      const known = await send('/public/v1/teardowns');
      expect(known.statusCode, method).toBe(405);
      expect(known.json(), method).toEqual({ detail: 'Method Not Allowed' });
      expect(known.headers.allow, method).toBe('GET, HEAD, POST');
      const unknown = await send('/public/v1/no-such-thing');
      expect(unknown.statusCode, method).toBe(404);
      expect(unknown.json(), method).toEqual({ detail: 'Not Found' });
    }
  });

  it('answers a POST of any media type to an unknown path with 404, before reading the body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/public/v1/no-such-thing', headers: { 'content-type': 'text/xml' }, payload: '<x/>' });
    expect(res.statusCode).toBe(404);
  });
});

describe('keys named like Object.prototype members', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

  it.each(names)('reports %s as an ordinary unknown key', async (key) => {
    for (const [method, url] of [
      ['PATCH', `/public/v1/sales-lease-exchange/${listingId}`],
      ['POST', '/public/v1/sales-lease-exchange'],
      ['POST', '/public/v1/teardowns'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { ...seller.headers, ...json }, payload: `{${JSON.stringify(key)}: 1}` });
      expect(res.statusCode, `${method} ${url}`).toBe(422);
      const extra = res.json().detail.find((i: { type: string }) => i.type === 'extra_forbidden');
      expect(extra, `${method} ${url}`).toEqual({ type: 'extra_forbidden', loc: ['body', key], msg: 'Extra inputs are not permitted', input: 1 });
      expect(res.body).not.toContain('native code');
    }
  });

  it.each(['constructor', 'toString', '__proto__'])('answers an image part declared as %s with a plain 400, not a 500', async (type) => {
    const form = multipart([{ name: 'file', filename: 'a.png', contentType: type, data: 'x' }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/public/v1/sales-lease-exchange/images/${listingId}`,
      headers: { ...seller.headers, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('native code');
  });

  it('never writes a column for a body key inherited from Object.prototype', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/public/v1/sales-lease-exchange/${listingId}`,
      headers: { ...seller.headers, ...json },
      payload: '{"title": "Renamed", "constructor": {"column": "org_id"}}',
    });
    expect(res.statusCode).toBe(422);
    const after = await t.app.inject({ method: 'GET', url: `/public/v1/sales-lease-exchange/${listingId}`, headers: seller.headers });
    expect(after.json().title).not.toBe('Renamed');
  });
});

describe('security headers', () => {
  const big = JSON.stringify({ name: 'x'.repeat(MAX_JSON_BYTES) });
  const authenticated: [string, () => InjectOptions][] = [
    ['200 list', () => ({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers })],
    ['401', () => ({ method: 'GET', url: '/public/v1/teardowns' })],
    ['404 record', () => ({ method: 'GET', url: '/public/v1/sales-lease-exchange/00000000-0000-4000-8000-000000000000', headers: seller.headers })],
    ['404 route', () => ({ method: 'GET', url: '/public/v1/nowhere' })],
    ['405', () => ({ method: 'PUT', url: '/public/v1/teardowns' })],
    ['400 bad escape', () => ({ method: 'GET', url: '/public/v1/teardowns/%E0%A4%A', headers: seller.headers })],
    ['415', () => ({ method: 'POST', url: '/public/v1/teardowns', headers: { ...seller.headers, 'content-type': 'text/xml' }, payload: '<x/>' })],
    ['422 upload', () => ({ method: 'POST', url: `/public/v1/sales-lease-exchange/images/${listingId}`, headers: { ...seller.headers, ...json }, payload: '{}' })],
    ['400 multipart', () => ({ method: 'POST', url: `/public/v1/sales-lease-exchange/images/${listingId}`, headers: { ...seller.headers, 'content-type': 'multipart/form-data; boundary=zz' }, payload: 'garbage' })],
    ['413', () => ({ method: 'POST', url: '/admin/v1/organizations', headers: { ...admin, ...json }, payload: big })],
    ['admin 200', () => ({ method: 'GET', url: '/admin/v1/organizations', headers: admin })],
    ['admin 401', () => ({ method: 'GET', url: '/admin/v1/organizations' })],
  ];

  it.each(authenticated)('sends nosniff and no-store on an API answer: %s', async (name, request) => {
    const options = request();
    const res = await t.app.inject({ ...options, headers: { ...(options.headers as Record<string, string>), 'x-request-id': 'hdr-1' } });
    expect(String(res.statusCode)).toBe(name.split(' ')[0] === 'admin' ? name.split(' ')[1] : name.split(' ')[0]);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBe('hdr-1');
  });

  it('sends nosniff but lets the OpenAPI document and the health check be cached', async () => {
    for (const url of ['/public/v1/openapi.json', '/healthz', '/nowhere']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['cache-control'], url).toBeUndefined();
    }
  });
});
