// Operational surfaces: Prometheus metrics, the public OpenAPI document and the docs page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createPrincipal } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
const sample = (text: string, series: string) =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.split(' ')[1] ?? 0,
  );

describe('/metrics', () => {
  it('serves Prometheus text without authentication', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts requests by route pattern, method and status, and times them', async () => {
    const p = await createPrincipal(t);
    await t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: p.headers });
    await t.app.inject({ method: 'GET', url: '/public/v1/teardowns?page=2', headers: p.headers });
    const text = await metrics();
    expect(sample(text, 'http_requests_total{method="GET",route="/public/v1/teardowns",status_code="200"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/public/v1/teardowns"}')).toBeGreaterThanOrEqual(2);
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/public/v1/teardowns"}');
  });

  it('labels by route pattern, never by raw path: ids and unknown paths add no series', async () => {
    const p = await createPrincipal(t);
    const id = '00000000-0000-4000-8000-000000000001';
    await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: p.headers });
    await t.app.inject({ method: 'GET', url: '/probe-a1b2c3' });
    const text = await metrics();
    expect(text).not.toContain(id);
    expect(text).not.toContain('probe-a1b2c3');
    expect(text).toContain('route="/public/v1/teardowns/:teardown_id"');
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBeGreaterThanOrEqual(1);
  });

  it('counts authentication failures by code, operator ones included', async () => {
    const before = await metrics();
    await t.app.inject({ method: 'GET', url: '/public/v1/teardowns' });
    await t.app.inject({ method: 'GET', url: '/admin/v1/organizations', headers: { authorization: 'Bearer wrong-wrong-wrong-wrong' } });
    const after = await metrics();
    for (const code of ['missing_or_malformed_authorization', 'admin_unauthorized']) {
      const series = `auth_failures_total{code="${code}"}`;
      expect(sample(after, series) - sample(before, series), code).toBe(1);
    }
  });
});

describe('/public/v1/openapi.json', () => {
  let doc: {
    openapi: string;
    paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses?: object }>>;
    components?: { schemas?: Record<string, unknown> };
  };
  beforeAll(async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });

  it('is an OpenAPI 3.1 document served without authentication', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/public/v1/teardowns']).toEqual(expect.objectContaining({ get: expect.any(Object), post: expect.any(Object) }));
  });

  it('lists only public partner paths: no operator, system or docs routes', () => {
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^\/public\/v1\//);
    expect(JSON.stringify(doc.paths)).not.toContain('/admin');
    expect(paths).not.toContain('/public/v1/openapi.json');
  });

  it('gives every operation a unique operationId, tags and responses', () => {
    const ids: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
        expect(op.operationId, `${method} ${path}`).toEqual(expect.any(String));
        expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
        expect(op.responses, `${method} ${path}`).toBeDefined();
        ids.push(op.operationId as string);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('resolves every $ref to a component of the document', async () => {
    const full = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).body;
    const refs = [...full.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] as string);
    const components = doc.components as Record<string, Record<string, unknown> | undefined>;
    for (const ref of new Set(refs)) {
      const [, kind, name] = /^#\/components\/(schemas|headers|responses)\/(.+)$/.exec(ref) ?? [];
      expect(kind, ref).toBeDefined();
      expect(components[kind as string]?.[name as string], ref).toBeDefined();
    }
  });

  it('declares the Idempotency-Key header, the 409 and Idempotent-Replayed on every POST', () => {
    type Operation = { parameters?: { name: string; in: string }[]; responses?: Record<string, { headers?: Record<string, unknown> }> };
    const posts = Object.entries(doc.paths).flatMap(([path, item]) => (item.post ? [[path, item.post as Operation] as const] : []));
    expect(posts.length).toBe(14); // 2 creates, the transition, 8 upload routes, 3 webhook-endpoint POSTs
    for (const [path, operation] of posts) {
      expect(
        operation.parameters?.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'),
        path,
      ).toBe(true);
      expect(operation.responses?.['409'], path).toBeDefined();
      const ok = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
      for (const [, response] of ok) expect(response.headers?.['Idempotent-Replayed'], path).toBeDefined();
    }
  });

  /** An operation's response, its $ref (a shared component) resolved. */
  const resolved = <T>(response: T | { $ref: string }): T => {
    if (!(response && typeof response === 'object' && '$ref' in response)) return response as T;
    const [, name] = /^#\/components\/responses\/(.+)$/.exec(response.$ref) ?? [];
    return (doc.components as { responses: Record<string, T> }).responses[name as string] as T;
  };

  it('declares x-request-id on every response, the rate-limit fields once the key is known, Retry-After on 429', () => {
    type Response = { headers?: Record<string, { $ref: string }> };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, ref] of Object.entries((operation.responses ?? {}) as Record<string, Response>)) {
          const response = resolved(ref);
          const where = `${method} ${path} ${status}`;
          expect(response.headers?.['x-request-id'], where).toEqual({ $ref: '#/components/headers/XRequestId' });
          if (['401', '408', '414', '431'].includes(status)) expect(response.headers?.RateLimit, where).toBeUndefined();
          else expect(response.headers?.RateLimit, where).toEqual({ $ref: '#/components/headers/RateLimit' });
          if (status === '429') expect(response.headers?.['Retry-After'], where).toEqual({ $ref: '#/components/headers/RetryAfter' });
        }
      }
    }
  });

  it("documents the HTTP layer's refusals (408, 414, 431) on every operation, with the bodies the service sends", async () => {
    type Response = { content?: { 'application/json'?: { examples?: Record<string, { value: unknown }> } } };
    const tooLongId = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${'a'.repeat(600)}` });
    expect(tooLongId.statusCode).toBe(414);
    const expected: Record<string, [string, unknown]> = {
      '408': ['request_timeout', { detail: { error_code: 'request_timeout', message: expect.stringContaining('in time') } }],
      '414': ['uri_too_long', tooLongId.json()],
      '431': [
        'request_header_fields_too_large',
        { detail: { error_code: 'request_header_fields_too_large', message: expect.any(String) } },
      ],
    };
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        operations++;
        const responses = (operation.responses ?? {}) as Record<string, Response>;
        for (const [status, [code, body]] of Object.entries(expected)) {
          const example = resolved(responses[status])?.content?.['application/json']?.examples?.[code];
          expect(example?.value, `${method} ${path} ${status}`).toEqual(body);
        }
      }
    }
    expect(operations).toBeGreaterThan(20);
  });

  it('documents the API-key and organization headers as security schemes', () => {
    expect(JSON.stringify(doc)).toContain('X-Organization-Id');
  });
});

describe('/docs', () => {
  it('renders the documentation page as HTML without authentication', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<html');
  });

  it('renders the same document as /public/v1/openapi.json (the page loads /docs/json)', async () => {
    const page = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const served = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
    expect(page).toEqual(served);
    expect(JSON.stringify(page)).toContain('Idempotency-Key');
  });

  it('points the page at the public document, not at one that includes operator routes', async () => {
    // @fastify/swagger-ui always loads its own ./json (the test above: the public document); no
    // setting of ours names another one.
    const res = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("url: resolveUrl('./json')");
    expect(res.body).not.toMatch(/openapi\.json|admin/);
  });
});
