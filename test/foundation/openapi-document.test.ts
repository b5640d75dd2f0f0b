// The served OpenAPI document as a partner's tools read it: its examples work when sent as they
// are, its errors are typed with real codes, and what it documents is what the service does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; headers?: Json; content?: Record<string, Media> }>;
}
interface Document {
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

let t: TestApp;
let seller: Principal;
let doc: Document;
beforeAll(async () => {
  // Webhook URL examples name a public host: this resolver answers for it as public DNS would.
  t = await createTestApp({ env: { WEBHOOK_POLL_MS: '0' }, webhookResolver: async () => [{ address: '93.184.216.34', family: 4 }] });
  seller = await createSeller(t);
  const res = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => {
  await t.close();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

const component = (schema: Json | undefined) => {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? doc.components.schemas[ref.replace('#/components/schemas/', '')] : schema;
};

/** The example of a media object: its own, or the first of its named component's. */
function exampleOf(media: Media | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  if (media.examples) return Object.values(media.examples)[0]?.value;
  return (component(media.schema)?.examples as unknown[] | undefined)?.[0];
}

describe('request-body examples', () => {
  it('succeed when sent as they are to a fresh organization', async () => {
    const withBodies = operations().filter(({ operation }) => operation.requestBody?.content['application/json']);
    expect(withBodies.length).toBe(7); // teardown and listing create and PATCH, the transition, webhook create and PATCH
    // Creates first (no path id): their answers give the ids the other examples are sent to.
    const ordered = [...withBodies].sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
    const ids: Record<string, string> = {};
    for (const { path, method, operation } of ordered) {
      const example = exampleOf(operation.requestBody?.content['application/json']);
      expect(example, operation.operationId).toBeDefined();
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name] ?? `missing-${name}`);
      const res = await t.app.inject({ method: method.toUpperCase() as 'POST', url, headers: seller.headers, payload: example as Json });
      expect(res.statusCode, `${operation.operationId}: ${res.body}`).toBeGreaterThanOrEqual(200);
      expect(res.statusCode, `${operation.operationId}: ${res.body}`).toBeLessThan(300);
      // The answer matches the documented status.
      expect(Object.keys(operation.responses), operation.operationId).toContain(String(res.statusCode));
      const body = res.json();
      if (operation.operationId === 'createTeardown') ids.teardown_id = body.teardown_id;
      if (operation.operationId === 'createListing') ids.listing_id = body.id;
      if (operation.operationId === 'createWebhookEndpoint') ids.endpoint_id = body.id;
    }
  });

  it('use real vocabulary names and countries, never a placeholder', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"string"]');
    expect(text).not.toContain('additionalProp1');
    const create = exampleOf(doc.paths['/public/v1/teardowns'].post.requestBody?.content['application/json']) as Json;
    expect(create).toEqual(expect.objectContaining({ aircraft_type: 'A320-200', country: 'FR', status: 'Starting' }));
  });
});

describe('every operation', () => {
  it('has a summary, a description, tags the document describes, security and a success example', () => {
    const described = new Set((doc.tags ?? []).filter((tag) => tag.description).map((tag) => tag.name));
    for (const { path, method, operation } of operations()) {
      const where = `${method} ${path}`;
      expect(operation.summary, where).toEqual(expect.any(String));
      expect(operation.description?.length, where).toBeGreaterThan(20);
      for (const tag of operation.tags ?? []) expect(described.has(tag), `${where}: tag ${tag}`).toBe(true);
      expect(operation.security, where).toEqual([{ apiKey: [], organization: [] }]);
      const [status, ok] = Object.entries(operation.responses).find(([s]) => s.startsWith('2')) ?? [];
      if (status !== '204') expect(exampleOf(ok?.content?.['application/json']), `${where} ${status}`).toBeDefined();
    }
  });

  it('documents 400, 401, 403, 422, 429, 500 and 503, each with x-request-id, Retry-After on 429 and 503', () => {
    for (const { path, method, operation } of operations()) {
      for (const status of ['400', '401', '403', '422', '429', '500', '503']) {
        const response = operation.responses[status];
        expect(response, `${method} ${path} ${status}`).toBeDefined();
        expect(response.headers?.['x-request-id'], `${method} ${path} ${status}`).toBeDefined();
      }
      expect(operation.responses['429'].headers?.['Retry-After']).toBeDefined();
      expect(operation.responses['503'].headers?.['Retry-After']).toBeDefined();
      // Every operation on one record has its plain-string 404.
      if (path.includes('{')) expect(operation.responses['404'], `${method} ${path}`).toBeDefined();
    }
  });

  it('references ValidationError from every 422', () => {
    for (const { path, method, operation } of operations()) {
      const text = JSON.stringify(operation.responses['422'].content?.['application/json']?.schema);
      expect(text, `${method} ${path}`).toContain('#/components/schemas/ValidationError');
    }
  });

  it('types each business error with its codes, and every example carries one of them', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.['application/json'];
        if (!status.match(/^[45]/) || !media) continue;
        const text = JSON.stringify(media.schema);
        const codes = [...text.matchAll(/"enum":\[([^\]]*)\]/g)].flatMap((m) => JSON.parse(`[${m[1]}]`) as string[]);
        expect(Object.keys(media.examples ?? {}).length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const [name, example] of Object.entries(media.examples ?? {})) {
          const detail = (example.value as { detail: unknown }).detail;
          if (typeof detail === 'object' && detail !== null && !Array.isArray(detail)) {
            const code = (detail as { error_code: string }).error_code;
            expect(codes, `${method} ${path} ${status} ${name}`).toContain(code);
            expect((detail as { message: string }).message).not.toBe('string');
          }
        }
      }
    }
    const create = doc.paths['/public/v1/teardowns'].post.responses;
    expect(JSON.stringify(create['403'])).toContain('insufficient_capability');
    expect(JSON.stringify(create['422'])).toContain('invalid_status');
    expect(JSON.stringify(doc.paths['/public/v1/teardowns'].get.responses['403'])).not.toContain('insufficient_capability');
    expect(JSON.stringify(doc.paths['/public/v1/teardowns/transition/{teardown_id}'].post.responses['400'])).toContain(
      '#/components/schemas/PlainError',
    );
  });
});

describe('parameters', () => {
  it('never requires a parameter that has a default, and the service applies the default', async () => {
    const list = doc.paths['/public/v1/teardowns'].get.parameters ?? [];
    for (const name of ['page', 'per_page', 'sort_by', 'sort_dir']) {
      const parameter = list.find((p) => p.name === name);
      expect(parameter?.required, name).toBe(false);
      expect(parameter?.schema?.default, name).toBeDefined();
    }
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(expect.objectContaining({ page: 1, per_page: 20 }));
  });

  it('bounds page by the largest int64 a double holds: the service answers it, and refuses what lies beyond', async () => {
    const page = doc.paths['/public/v1/teardowns'].get.parameters?.find((p) => p.name === 'page');
    expect(page?.schema).toEqual(expect.objectContaining({ minimum: 1, maximum: 2 ** 63 - 1024, format: 'int64' }));
    const last = await t.app.inject({ method: 'GET', url: '/public/v1/teardowns?page=9223372036854774784', headers: seller.headers });
    expect(last.statusCode).toBe(200);
    expect(last.json().items).toEqual([]);
    for (const beyond of ['9223372036854775808', '1e300']) {
      const res = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns?page=${beyond}`, headers: seller.headers });
      expect(res.statusCode, beyond).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'page']);
    }
  });

  it('gives every string query parameter a maxLength the server accepts without a 431', async () => {
    for (const { path, method, operation } of operations()) {
      const strings = (operation.parameters ?? []).filter((p) => p.in === 'query' && p.schema?.type === 'string' && !p.schema.enum);
      if (method !== 'get' && method !== 'delete') continue;
      if (strings.length === 0) continue;
      for (const p of strings) expect(p.schema?.maxLength, `${method} ${path} ${p.name}`).toEqual(expect.any(Number));
      // The worst case: every parameter at its maxLength of characters that each take 9 bytes percent-encoded.
      // A URL is printable ASCII: '"' is the longest of those once encoded (%22). Other patterns (the
      // status CSV) allow ASCII letters and commas only, shorter still: sent as they are.
      const worst = (p: Parameter) => {
        const n = Number(p.schema?.maxLength);
        if (!p.schema?.pattern) return '€'.repeat(n);
        return p.schema.pattern === '^[!-~]+$' ? '"'.repeat(n) : 'draft,'.repeat(Math.floor(n / 6));
      };
      const query = strings.map((p) => `${p.name}=${encodeURIComponent(worst(p))}`).join('&');
      const url = path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url: `${url}?${query}`, headers: seller.headers });
      expect(res.statusCode, `${method} ${path}`).not.toBe(431);
      // Node's limit (16 KB) covers the request line and the headers.
      expect(`${method.toUpperCase()} ${url}?${query} HTTP/1.1`.length, `${method} ${path}`).toBeLessThan(16 * 1024 - 2048);
    }
  });

  it('types path ids as UUIDs in the document, while a non-UUID id keeps answering the plain 404', async () => {
    const id = doc.paths['/public/v1/teardowns/{teardown_id}'].get.parameters?.find((p) => p.name === 'teardown_id');
    expect(id?.schema).toEqual(expect.objectContaining({ format: 'uuid' }));
    for (const path of Object.keys(doc.paths).filter((p) => p.includes('{'))) {
      for (const operation of Object.values(doc.paths[path])) {
        for (const p of operation.parameters?.filter((q) => q.in === 'path') ?? []) expect(p.schema?.format, path).toBe('uuid');
      }
    }
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/teardowns/not-a-uuid', headers: seller.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Teardown not found' });
  });

  it('keeps the create status and the transition action open at run time (the contract codes them)', async () => {
    const schema = doc.components.schemas.CreateTeardown as { properties: Record<string, Json> };
    expect(schema.properties.status.enum).toEqual(['Starting', 'In process', 'Completed']);
    const res = await t.app.inject({
      method: 'POST',
      url: '/public/v1/teardowns',
      headers: seller.headers,
      payload: { asset_type: 'engine', status: 'Draft', engine_model: 'CFM56-5B', start_date: '2026-03-01', location: 'Shannon', country: 'IE' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.error_code).toBe('invalid_status');
  });
});

describe('document level', () => {
  it('names the server, both security schemes and every resource as a component', () => {
    expect(doc.servers?.[0]?.url).toBe('/');
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.components.securitySchemes.organization).toEqual(expect.objectContaining({ in: 'header', name: 'X-Organization-Id' }));
    for (const name of ['Teardown', 'TeardownListItem', 'TeardownPage', 'TransitionResult', 'Listing', 'ListingListItem', 'ListingPage']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    for (const name of ['BusinessError', 'ValidationError', 'PlainError', 'UploadResult', 'VocabularyTerm']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    // No run-time-only annotations leak into the document.
    expect(JSON.stringify(doc)).not.toContain('x-pydantic');
    expect(JSON.stringify(doc)).not.toContain('x-doc-only');
    expect(JSON.stringify(doc)).not.toContain('x-errors');
  });
});
