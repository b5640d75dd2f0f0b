// Webhook endpoints through HTTP: create / list / get / PATCH / DELETE, the secret shown once,
// another organization's endpoint and a malformed id answering 404, the 20-endpoint limit under
// concurrent creates, audit rows without secrets, and the URL refusals (SSRF).
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/types.js';
import type { TestApp } from '../helpers/app.js';
import { auditFor, createSeller, createPrincipal, type Principal } from '../helpers/factories.js';
import { createWebhookApp, startReceiver, type Receiver } from './helpers.js';

const URL_OK = 'http://127.0.0.1:9/hooks/marketplace';

describe('webhook endpoints', { timeout: 60_000 }, () => {
  let t: TestApp;
  let seller: Principal;
  let other: Principal;

  beforeAll(async () => {
    // The worker idles: nothing here is delivered (port 9 discards).
    t = await createWebhookApp({ env: { WEBHOOK_POLL_MS: '0' } });
    seller = await createSeller(t);
    other = await createSeller(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (p: Principal, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url: `/public/v1${url}`, headers: p.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('creates an endpoint, shows its secret once, and never again', async () => {
    const res = await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK, description: 'ERP sync' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ url: URL_OK, description: 'ERP sync', event_types: null, enabled: true, disabled_reason: null });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);

    const got = await call(seller, 'GET', `/webhook-endpoints/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().secret).toBeUndefined();
    expect(got.body).not.toContain(created.secret.slice(6));
    const listed = await call(seller, 'GET', '/webhook-endpoints');
    expect(listed.json().items.map((e: { id: string }) => e.id)).toContain(created.id);
    expect(listed.body).not.toContain(created.secret.slice(6));

    // Audit rows: the creation, without the secret.
    const audit = await auditFor(t, created.id);
    expect(audit.map((a) => a.action)).toEqual(['webhook_endpoint.created']);
    expect(JSON.stringify(audit)).not.toContain(created.secret.slice(6));
  });

  it('changes url, event types, description and enabled; audits without secrets', async () => {
    const created = (await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK, event_types: ['teardown.created'] })).json();
    expect(created.event_types).toEqual(['teardown.created']);
    const patched = await call(seller, 'PATCH', `/webhook-endpoints/${created.id}`, {
      url: 'http://127.0.0.1:9/other',
      event_types: ['listing.created', 'listing.deleted'],
      description: 'moved',
      enabled: false,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      url: 'http://127.0.0.1:9/other',
      event_types: ['listing.created', 'listing.deleted'],
      description: 'moved',
      enabled: false,
      disabled_reason: 'disabled_by_partner',
    });
    const back = (
      await call(seller, 'PATCH', `/webhook-endpoints/${created.id}`, { enabled: true, event_types: null, description: null })
    ).json();
    expect(back).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, event_types: null, description: null });
    // An empty PATCH changes nothing but is fine.
    expect((await call(seller, 'PATCH', `/webhook-endpoints/${created.id}`)).statusCode).toBe(200);

    const rotated = await call(seller, 'POST', `/webhook-endpoints/${created.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(created.secret);
    expect(rotated.json().previous_secret_expires_at).toEqual(expect.any(String));

    const audit = await auditFor(t, created.id);
    expect(audit.map((a) => a.action).sort()).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.updated',
      'webhook_endpoint.updated',
      'webhook_endpoint.updated',
    ]);
    const text = JSON.stringify(audit);
    expect(text).not.toContain(created.secret.slice(6));
    expect(text).not.toContain(rotated.json().secret.slice(6));

    expect((await call(seller, 'DELETE', `/webhook-endpoints/${created.id}`)).statusCode).toBe(204);
    expect((await call(seller, 'GET', `/webhook-endpoints/${created.id}`)).json()).toEqual({ detail: 'Webhook endpoint not found' });
    expect((await auditFor(t, created.id))[0].action).toBe('webhook_endpoint.deleted');
  });

  it("answers another organization's endpoint, an unknown one and a malformed id with the plain 404", async () => {
    const mine = (await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK })).json();
    const paths: ['GET' | 'POST' | 'PATCH' | 'DELETE', string][] = [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
    ];
    for (const id of [mine.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1' OR '1'='1"]) {
      for (const [method, suffix] of paths) {
        const who = id === mine.id ? other : seller;
        const res = await call(
          who,
          method,
          `/webhook-endpoints/${encodeURIComponent(id)}${suffix}`,
          method === 'PATCH' ? { description: 'x' } : undefined,
        );
        expect(res.statusCode, `${method} ${id}${suffix}`).toBe(404);
        expect(res.json()).toEqual({ detail: 'Webhook endpoint not found' });
      }
    }
    expect((await call(other, 'GET', '/webhook-endpoints')).json().items).toEqual([]);
    // Still there, unchanged, for its owner.
    expect((await call(seller, 'GET', `/webhook-endpoints/${mine.id}`)).json().description).toBeNull();
  });

  it('needs the seller capability to manage endpoints; any key may read them', async () => {
    const reader = await createPrincipal(t, { capabilities: [], orgId: seller.orgId });
    const res = await call(reader, 'POST', '/webhook-endpoints', { url: URL_OK });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail.error_code).toBe('insufficient_capability');
    expect((await call(reader, 'GET', '/webhook-endpoints')).statusCode).toBe(200);
  });

  it('validates the body: unknown event types, unknown fields, a missing url', async () => {
    const bad = await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK, event_types: ['teardown.exploded'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['body', 'event_types', 0]);
    expect((await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK, secret: 'whsec_mine' })).statusCode).toBe(422);
    expect((await call(seller, 'POST', '/webhook-endpoints', {})).statusCode).toBe(422);
    expect((await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK, event_types: [] })).statusCode).toBe(422);
    // Every type of the feed is accepted.
    const all = await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK, event_types: EVENT_TYPES });
    expect(all.statusCode).toBe(201);
    await call(seller, 'DELETE', `/webhook-endpoints/${all.json().id}`);
  });

  it('caps an organization at 20 endpoints, even when 25 creates race', async () => {
    const org = await createSeller(t);
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => call(org, 'POST', '/webhook-endpoints', { url: `${URL_OK}?n=${i}` })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.statusCode).toBe(422);
      expect(r.json().detail).toMatchObject({ error_code: 'too_many_webhook_endpoints', limit: 20 });
    }
    expect((await call(org, 'GET', '/webhook-endpoints')).json().items).toHaveLength(20);
    // A delete frees a place.
    const first = results.find((r) => r.statusCode === 201)?.json();
    expect((await call(org, 'DELETE', `/webhook-endpoints/${first.id}`)).statusCode).toBe(204);
    expect((await call(org, 'POST', '/webhook-endpoints', { url: URL_OK })).statusCode).toBe(201);
    expect((await call(org, 'POST', '/webhook-endpoints', { url: URL_OK })).statusCode).toBe(422);
  });

  it('lists endpoints for operators (by organization) without secrets', async () => {
    const created = (await call(seller, 'POST', '/webhook-endpoints', { url: URL_OK })).json();
    const res = await t.admin('GET', `/admin/v1/webhook-endpoints?org_id=${seller.orgId}`);
    expect(res.statusCode).toBe(200);
    const item = res.json().items.find((e: { id: string }) => e.id === created.id);
    expect(item).toMatchObject({ org_id: seller.orgId, url: URL_OK, enabled: true, last_delivered_seq: expect.any(Number) });
    expect(res.body).not.toContain(created.secret.slice(6));
    expect(res.json().items.every((e: { org_id: string }) => e.org_id === seller.orgId)).toBe(true);
    expect((await t.admin('GET', '/admin/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/deliveries')).statusCode).toBe(404);
  });
});

describe('webhook URL refusals (SSRF)', { timeout: 60_000 }, () => {
  let strict: TestApp;
  let relaxed: TestApp;
  let seller: Principal;
  let relaxedSeller: Principal;
  let receiver: Receiver;
  // A fake DNS: names a test chooses, resolving as it says; anything else does not resolve.
  const dns: Record<string, LookupAddress[]> = {
    'localhost.test': [{ address: '127.0.0.1', family: 4 }],
    'intranet.test': [{ address: '10.1.2.3', family: 4 }],
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '192.168.1.10', family: 4 },
    ],
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'public.test': [{ address: '93.184.216.34', family: 4 }],
  };
  const resolver = async (host: string) => {
    const found = dns[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  beforeAll(async () => {
    strict = await createWebhookApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_POLL_MS: '0' }, webhookResolver: resolver });
    relaxed = await createWebhookApp({ env: { WEBHOOK_POLL_MS: '0' } });
    seller = await createSeller(strict);
    relaxedSeller = await createSeller(relaxed);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await strict?.close();
    await relaxed?.close();
  });

  const create = (t: TestApp, p: Principal, url: string) =>
    t.app.inject({ method: 'POST', url: '/public/v1/webhook-endpoints', headers: p.headers, payload: { url } });

  const refusedStrict: [string, RegExp][] = [
    ['http://hooks.example.com/x', /must use https/],
    ['ftp://public.test/x', /must use https/],
    ['https://127.0.0.1/x', /loopback or private/],
    ['https://127.1.2.3:8443/x', /loopback or private/],
    ['https://localhost/x', /loopback or private|does not resolve/],
    ['https://localhost.test/x', /loopback or private/],
    ['https://10.0.0.5/x', /loopback or private/],
    ['https://172.16.0.1/x', /loopback or private/],
    ['https://192.168.0.1/x', /loopback or private/],
    ['https://100.64.0.1/x', /loopback or private/],
    ['https://intranet.test/x', /loopback or private/],
    ['https://mixed.test/x', /loopback or private/],
    ['https://[::1]/x', /loopback or private/],
    ['https://[::ffff:127.0.0.1]/x', /loopback or private/],
    ['https://[::ffff:a9fe:a9fe]/x', /link-local/],
    ['https://mapped.test/x', /loopback or private/],
    ['https://[fc00::1]/x', /loopback or private/],
    ['https://0.0.0.0/x', /link-local, metadata, unspecified/],
    ['https://[::]/x', /unspecified/],
    ['https://169.254.169.254/latest/meta-data', /link-local, metadata/],
    ['https://metadata.test/x', /link-local, metadata/],
    ['https://[fe80::1]/x', /link-local/],
    ['https://[fd00:ec2::254]/x', /metadata/],
    ['https://224.0.0.1/x', /multicast/],
    ['https://user:pass@public.test/x', /credentials/],
    ['https://token@public.test/x', /credentials/],
    ['https://nowhere.test/x', /does not resolve/],
    [`https://public.test/${'a'.repeat(2100)}`, /longer than 2048|2048/],
    ['not a url', /not a valid absolute URL/],
  ];

  it('refuses, with WEBHOOK_ALLOW_PRIVATE_URLS=false, every URL that is not https to a public address', async () => {
    for (const [url, message] of refusedStrict) {
      const res = await create(strict, seller, url);
      expect(res.statusCode, url).toBe(422);
      const detail = res.json().detail;
      // Over-long URLs are refused by the schema (maxLength) before the business rule.
      if (Array.isArray(detail)) {
        expect(url.length).toBeGreaterThan(2048);
        continue;
      }
      expect(detail.error_code, url).toBe('invalid_webhook_url');
      expect(detail.message, url).toMatch(message);
    }
    // PATCH runs the same check.
    const ok = await create(strict, seller, 'https://public.test/hooks');
    expect(ok.statusCode).toBe(201);
    const patch = await strict.app.inject({
      method: 'PATCH',
      url: `/public/v1/webhook-endpoints/${ok.json().id}`,
      headers: seller.headers,
      payload: { url: 'https://10.0.0.1/x' },
    });
    expect(patch.statusCode).toBe(422);
    expect(patch.json().detail.error_code).toBe('invalid_webhook_url');
  });

  it('allows http, loopback and private with WEBHOOK_ALLOW_PRIVATE_URLS=true, never link-local or metadata', async () => {
    for (const url of [receiver.url, 'http://10.0.0.5/x', 'http://[::1]:8080/x', 'https://192.168.1.1/x']) {
      expect((await create(relaxed, relaxedSeller, url)).statusCode, url).toBe(201);
    }
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/x',
      'http://[fd00:ec2::254]/x',
      'http://[::ffff:169.254.169.254]/x',
      'http://0.0.0.0:8080/x',
      'http://user:pw@127.0.0.1/x',
    ]) {
      const res = await create(relaxed, relaxedSeller, url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail.error_code).toBe('invalid_webhook_url');
    }
  });
});
