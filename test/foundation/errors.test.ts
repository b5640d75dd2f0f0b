// Error shapes of the pipeline itself: body limits, malformed JSON, unknown routes and methods,
// request ids on every answer, and a 500 that never leaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';

const MAX_JSON_BYTES = 2048;

let t: TestApp;
let seller: Principal;
beforeAll(async () => {
  t = await createTestApp({ env: { MAX_JSON_BYTES: String(MAX_JSON_BYTES) } });
  seller = await createSeller(t);
});
afterAll(async () => {
  await t.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const json = { 'content-type': 'application/json' };
const postOrg = (payload: string | Buffer, headers: Record<string, string> = json) =>
  t.app.inject({ method: 'POST', url: '/admin/v1/organizations', headers: { ...admin, ...headers }, payload });
const bigBody = () => JSON.stringify({ name: 'x'.repeat(MAX_JSON_BYTES) });

describe('body size (413 payload_too_large)', () => {
  it('refuses a JSON body over MAX_JSON_BYTES on the admin API', async () => {
    const res = await postOrg(bigBody());
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ detail: { error_code: 'payload_too_large', message: expect.any(String), limit: MAX_JSON_BYTES } });
  });

  it('refuses a JSON body over MAX_JSON_BYTES on a public create', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/v1/teardowns',
      headers: { ...seller.headers, ...json },
      payload: bigBody(),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().detail.error_code).toBe('payload_too_large');
  });

  it('authenticates before reading the body: an oversized body without a key is a 401', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/public/v1/teardowns', headers: json, payload: bigBody() });
    expect(res.statusCode).toBe(401);
  });

  it('accepts a body just under the limit', async () => {
    const res = await postOrg(JSON.stringify({ name: 'n'.repeat(150) }));
    expect(res.statusCode).toBe(201);
  });
});

describe('malformed JSON (422 json_invalid)', () => {
  it.each([
    ['{"name": }', 9, 'Expecting value'],
    ['{"name": "x",}', 13, 'Expecting property name enclosed in double quotes'],
    ['{"name" "x"}', 8, "Expecting ':' delimiter"],
    ['{"name": "x"', 12, "Expecting ',' delimiter"],
    ['{"name": "x"} trailing', 14, 'Extra data'],
    ['{"name": "caf\u00e9 \ud83d\ude80 x}', 9, 'Unterminated string starting at'],
    ["{'name': 'x'}", 1, 'Expecting property name enclosed in double quotes'],
  ])('locates the error in %j at character %i', async (payload, offset, error) => {
    const res = await postOrg(payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [{ type: 'json_invalid', loc: ['body', offset], msg: 'JSON decode error', input: {}, ctx: { error } }],
    });
  });

  it('counts characters, not bytes or UTF-16 units, in the offset', async () => {
    const res = await postOrg('{"name": "\ud83d\ude80", "x": ]}');
    expect(res.json().detail[0].loc).toEqual(['body', 19]);
  });

  it('answers a deeply nested body with schema items, not a 500', async () => {
    // This file's app takes 2 KB bodies; the default 10 MB limit lets the depth through.
    const roomy = await createTestApp();
    try {
      const nested = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const types: string[] = [];
      for (const payload of [`{"name":"x","extra":${nested}}`, `{"name":${nested}}`]) {
        const res = await roomy.app.inject({ method: 'POST', url: '/admin/v1/organizations', headers: { ...admin, ...json }, payload });
        expect(res.statusCode).toBe(422);
        types.push(res.json().detail[0].type);
      }
      expect(types).toEqual(['extra_forbidden', 'string_type']);
    } finally {
      await roomy.close();
    }
  });

  it('answers an empty body, or JSON null, as a missing body', async () => {
    for (const payload of ['', '  ', 'null']) {
      const res = await postOrg(payload);
      expect(res.statusCode, payload).toBe(422);
      expect(res.json()).toEqual({ detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] });
    }
  });

  it('answers a JSON value that is not an object with model_attributes_type', async () => {
    for (const payload of ['[]', '"name"', '42', 'true']) {
      const res = await postOrg(payload);
      expect(res.statusCode, payload).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
    }
  });

  it('refuses text the database cannot store: NUL characters and unpaired surrogates', async () => {
    const res = await postOrg('{"name": "Acme\\u0000Parts"}');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ type: 'string_unicode', loc: ['body', 'name'], input: 'Acme\u0000Parts' }),
    ]);
    const surrogate = await postOrg('{"name": "half \\ud83d pair"}');
    expect(surrogate.statusCode).toBe(422);
    expect(surrogate.json().detail[0]).toMatchObject({ type: 'string_unicode', loc: ['body', 'name'] });
    expect((await postOrg('{"name": "whole \\ud83d\\ude80 pair"}')).statusCode).toBe(201);
    const query = await t.app.inject({ method: 'GET', url: '/admin/v1/audit-events?action=a%00b', headers: admin });
    expect(query.statusCode).toBe(422);
    expect(query.json().detail[0].loc).toEqual(['query', 'action']);
  });

  it('refuses datetimes no database can hold: a leap second, year zero', async () => {
    const org = JSON.parse((await postOrg('{"name": "Timekeepers"}')).body);
    const user = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/organizations/${org.id}/users`,
      headers: admin,
      payload: { email: 'clock@example.com', capabilities: [] },
    });
    for (const expires_at of ['2016-12-31T23:59:60Z', '0000-06-01T00:00:00Z']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/users/${user.json().id}/api-keys`,
        headers: admin,
        payload: { expires_at },
      });
      expect(res.statusCode, expires_at).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'expires_at']);
    }
  });

  it('ignores NUL characters in query parameters the endpoint does not declare', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/audit-events?unknown=a%00b', headers: admin });
    expect(res.statusCode).toBe(200);
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await postOrg('name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ detail: { error_code: 'unsupported_media_type', message: expect.any(String) } });
  });
});

describe('routing errors', () => {
  it('answers an unknown path with 404 {"detail": "Not Found"}, with or without credentials', async () => {
    for (const headers of [{}, seller.headers, admin]) {
      const res = await t.app.inject({ method: 'GET', url: '/public/v1/no-such-thing', headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/public/v1/teardowns', headers: seller.headers });
    expect(res.statusCode).toBe(405);
    expect(res.json()).toEqual({ detail: 'Method Not Allowed' });
    expect(res.headers.allow).toMatch(/^GET, (HEAD, )?POST$/);
  });

  it('answers a URL with a malformed percent-escape in the business shape', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/public/v1/teardowns/%E0%A4%A',
      headers: { ...seller.headers, 'x-request-id': 'bad-url-1' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: { error_code: 'bad_request', message: expect.any(String) } });
    expect(res.headers['x-request-id']).toBe('bad-url-1');
  });
});

describe('request ids', () => {
  const cases: [string, () => Promise<{ statusCode: number; headers: Record<string, unknown> }>][] = [
    ['200', () => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: { ...seller.headers, 'x-request-id': 'rid-1' } })],
    ['401', () => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: { 'x-request-id': 'rid-1' } })],
    ['404', () => t.app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'rid-1' } })],
    ['405', () => t.app.inject({ method: 'DELETE', url: '/healthz', headers: { 'x-request-id': 'rid-1' } })],
    ['413', () => postOrg(bigBody(), { ...json, 'x-request-id': 'rid-1' })],
    ['422', () => postOrg('{', { ...json, 'x-request-id': 'rid-1' })],
  ];

  it.each(cases)('carries the caller x-request-id on a %s', async (status, send) => {
    const res = await send();
    expect(String(res.statusCode)).toBe(status);
    expect(res.headers['x-request-id']).toBe('rid-1');
  });

  it('replaces an x-request-id that is too long or has unsafe characters', async () => {
    for (const rid of ['x'.repeat(129), 'a b', 'a/b', '<script>', 'é']) {
      const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': rid } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    const longest = 'a'.repeat(128);
    expect((await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': longest } })).headers['x-request-id']).toBe(
      longest,
    );
  });
});

describe('unexpected failures (500)', () => {
  it('answers {"detail": "Internal Server Error"} without stack or SQL when the database is gone', async () => {
    const broken = await createTestApp();
    try {
      const p = await createSeller(broken);
      await broken.database.db.destroy();
      const responses = [
        await broken.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: { ...p.headers, 'x-request-id': 'rid-500' } }),
        await broken.app.inject({ method: 'GET', url: '/admin/v1/organizations', headers: { ...admin, 'x-request-id': 'rid-500' } }),
      ];
      for (const res of responses) {
        expect(res.statusCode).toBe(500);
        expect(res.body).toBe('{"detail":"Internal Server Error"}');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['x-request-id']).toBe('rid-500');
      }
      const ready = await broken.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', checks: { database: 'unavailable' } });
    } finally {
      await broken.close();
    }
  });
});
