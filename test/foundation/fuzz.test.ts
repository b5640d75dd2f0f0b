// Property-based: whatever headers, bodies, query strings and path segments a client sends,
// public and admin endpoints never answer 5xx, always carry a request id, and every error is
// in one of the spec's shapes (plain string, business object, or 422 schema items).
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { createOrg, createSeller, createUser, type Principal } from '../helpers/factories.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

let t: TestApp;
let seller: Principal;
let spareOrgId: string;
let spareUserId: string;
beforeAll(async () => {
  // Generous budgets: the point here is every other answer, not 429.
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000' } });
  seller = await createSeller(t);
  // Admin mutations are fuzzed on records of their own, so the seller's organization stays usable.
  spareOrgId = (await createOrg(t)).id;
  spareUserId = (await createUser(t, spareOrgId)).id;
});
afterAll(async () => {
  await t.close();
});

function describeRequest(request: InjectOptions) {
  const payload = typeof request.payload === 'string' ? request.payload.slice(0, 300) : request.payload;
  return JSON.stringify({ method: request.method, url: request.url, headers: request.headers, payload });
}

/** The invariant of every answer. */
function expectSpecShape(request: InjectOptions, res: LightMyRequestResponse) {
  const context = `${describeRequest(request)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, context).toBeLessThan(500);
  expect(res.headers['x-request-id'], context).toEqual(expect.any(String));
  if (res.statusCode === 204 || res.statusCode < 400) return;
  expect(res.headers['content-type'], context).toMatch(/^application\/json/);
  const { detail } = JSON.parse(res.body);
  if (typeof detail === 'string') return;
  if (Array.isArray(detail)) {
    expect(detail.length, context).toBeGreaterThan(0);
    for (const item of detail) {
      expect(item, context).toEqual(expect.objectContaining({ type: expect.any(String), loc: expect.any(Array), msg: expect.any(String) }));
    }
    return;
  }
  expect(detail, context).toEqual(expect.objectContaining({ error_code: expect.any(String), message: expect.any(String) }));
}

async function send(request: InjectOptions) {
  const res = await t.app.inject(request);
  expectSpecShape(request, res);
  return res;
}

// Header values as an HTTP client can send them: visible ASCII, space, tab and obs-text bytes.
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((code) => String.fromCharCode(code));
const headerText = fc.string({ unit: headerChar, maxLength: 80 });

const authorization = () =>
  fc.oneof(
    fc.constant(`Bearer ${seller.key}`),
    fc.constant(`Bearer ${ADMIN_TOKEN}`),
    fc.constant(`bEaReR ${seller.key}`),
    fc.stringMatching(/^Bearer svc_live_[A-Za-z0-9]{0,40}$/),
    fc
      .tuple(
        fc.constantFrom('Bearer ', 'Bearer', 'Basic ', 'bearer  ', '', ' '),
        fc.oneof(fc.constant(seller.key), fc.constant('svc_live_'), headerText),
      )
      .map(([a, b]) => a + b),
    headerText,
  );
const organization = () => fc.oneof(fc.constant(seller.orgId), fc.constant(seller.orgId.toUpperCase()), fc.uuid(), headerText);
const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'Application/JSON',
    'application/problem+json',
    'text/plain',
    'text/html',
    'multipart/form-data',
    'multipart/form-data; boundary=xyz',
    'application/x-www-form-urlencoded',
    'application/octet-stream',
  ),
  headerText,
);
const requestId = fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/), headerText);

const jsonText = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '{',
    '{"a":',
    '[',
    '"',
    'nul',
    '{"a":1,}',
    '\u0000',
    '{"a":"\\u0000"}',
    '{"a":"\\ud800"}',
    '1e999',
    '-',
    '{"__proto__":{"x":1}}',
  ),
);
const rawBytes = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes));

const endpoints = (): [InjectOptions['method'], string][] => [
  ['GET', '/public/v1/teardowns'],
  ['POST', '/public/v1/teardowns'],
  ['GET', '/public/v1/teardowns/00000000-0000-4000-8000-000000000000'],
  ['PATCH', '/public/v1/teardowns/00000000-0000-4000-8000-000000000000'],
  ['GET', '/public/v1/sales-lease-exchange'],
  ['POST', '/public/v1/sales-lease-exchange'],
  ['GET', '/admin/v1/organizations'],
  ['POST', '/admin/v1/organizations'],
  ['PATCH', `/admin/v1/organizations/${spareOrgId}`],
  ['POST', `/admin/v1/organizations/${spareOrgId}/users`],
  ['PATCH', `/admin/v1/users/${spareUserId}`],
  ['POST', `/admin/v1/users/${spareUserId}/api-keys`],
  ['POST', '/admin/v1/vocabularies/engine-models'],
  ['GET', '/admin/v1/audit-events'],
];

const withCredentials = (url: string) => (url.startsWith('/admin') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { ...seller.headers });

describe('random headers', () => {
  it('never answer 5xx, on any endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints()),
        fc.record(
          { authorization: authorization(), 'x-organization-id': organization(), 'content-type': contentType, 'x-request-id': requestId },
          { requiredKeys: [] },
        ),
        fc.option(jsonText, { nil: undefined }),
        async ([method, url], headers, payload) => {
          const request: InjectOptions = { method, url, headers: headers as Record<string, string> };
          if (payload !== undefined && method !== 'GET') request.payload = payload;
          await send(request);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// Bodies mixing the fields endpoints know with plausible and hostile values.
const FIELDS = [
  'name',
  'email',
  'capabilities',
  'status',
  'account_status',
  'subscription_status',
  'api_access_enabled',
  'expires_at',
  'manufacturer',
  'category',
  'is_active',
  'asset_type',
  'start_date',
  'end_date',
  'location',
  'country',
  'aircraft_type',
  'engine_model',
  'apu_model',
  'traceability',
  'incident_related',
  'tail_number',
  'msn',
  'description',
  'audience',
  'documents',
  'images',
  'listing_type',
  'title',
  'price_usd',
  'cycles_remaining',
  'condition',
  'part_number',
  'extra',
];
const plausible = fc.constantFrom<unknown>(
  'aircraft',
  'engine',
  'apu',
  'Starting',
  'In process',
  'Completed',
  'active',
  'draft',
  'deactivated',
  'trialing',
  '2024-05-01',
  '2024-02-30',
  '0000-01-01',
  '2031-01-01T00:00:00Z',
  '2016-12-31T23:59:60Z',
  'A320-200',
  'CFM56-7B',
  'a320-200 ',
  'Yes',
  'No',
  'FR',
  'fr',
  'XX',
  'seller',
  ['seller'],
  ['Airline', 'oem'],
  [],
  ['https://x.example/a.pdf'],
  'ops@example.com',
  null,
  true,
  0,
  -1,
  1e308,
  '',
  ' ',
  '%_\\',
  "'; DROP TABLE teardowns; --",
  '\u0000',
  'a'.repeat(5000),
);
const body = fc.oneof(
  fc
    .dictionary(fc.constantFrom(...FIELDS), fc.oneof(plausible, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 10 })
    .map((v) => JSON.stringify(v)),
  jsonText,
);

describe('random bodies', () => {
  it('never answer 5xx, as JSON with valid credentials', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints().filter(([m]) => m !== 'GET')), body, async ([method, url], payload) => {
        await send({ method, url, headers: { ...withCredentials(url), 'content-type': 'application/json' }, payload });
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('never answer 5xx, as random bytes under any content type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints().filter(([m]) => m !== 'GET')),
        rawBytes,
        contentType,
        async ([method, url], payload, type) => {
          await send({ method, url, headers: { ...withCredentials(url), 'content-type': type }, payload });
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('random query strings and path segments', () => {
  const PARAMS = [
    'page',
    'per_page',
    'sort_by',
    'sort_dir',
    'status',
    'asset_type',
    'aircraft_type',
    'engine_model',
    'apu_model',
    'country',
    'search',
    'listing_type',
    'condition',
    'entity_id',
    'org_id',
    'action',
    'limit',
    'url',
  ];
  const value = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.integer().map(String),
    fc.constantFrom(
      '0',
      '1',
      '100',
      '101',
      '-1',
      '1.5',
      'created_at',
      'msn',
      'asc',
      'DESC',
      'active_starting,draft',
      'archived,,',
      '%',
      '_',
      '\\',
      'A320-200',
      '\u0000',
    ),
  );
  const encoded = (s: string) => encodeURIComponent(s);

  it('never answer 5xx on list endpoints', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/public/v1/teardowns', '/public/v1/sales-lease-exchange', '/admin/v1/audit-events', '/admin/v1/alerts'),
        fc.array(fc.tuple(fc.constantFrom(...PARAMS), value), { maxLength: 6 }),
        async (path, pairs) => {
          const query = pairs.map(([k, v]) => `${k}=${encoded(v)}`).join('&');
          await send({ method: 'GET', url: `${path}?${query}`, headers: withCredentials(path) });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('never answer 5xx on by-id endpoints, even with malformed escapes', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 60 }).map(encoded),
      fc.string({ unit: headerChar, maxLength: 30 }).map((s) => s.replace(/[/?# ]/g, '')),
      fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%00', 'x'.repeat(600)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/public/v1/teardowns/',
          '/public/v1/sales-lease-exchange/',
          '/admin/v1/organizations/',
          '/admin/v1/users/',
          '/admin/v1/vocabularies/',
        ),
        segment,
        fc.constantFrom<InjectOptions['method']>('GET', 'PATCH', 'DELETE', 'POST'),
        async (prefix, id, method) => {
          await send({
            method,
            url: prefix + id,
            headers: withCredentials(prefix),
            ...(method === 'PATCH' || method === 'POST' ? { payload: {} } : {}),
          });
        },
      ),
      { numRuns: RUNS },
    );
  });
});
