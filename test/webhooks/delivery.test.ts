// Delivery through a real HTTP receiver on loopback: signed the Standard Webhooks way (verified by
// the `standardwebhooks` package), in order per endpoint across retries (500s and timeouts), 410
// disabling at once, 3 days of failures disabling, secret rotation signing with both secrets for
// 24 h, the event_types filter, pause and resume, the test send, operator replay, the delivery log,
// and a host that turns private only at delivery time being refused there.
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sign } from '../../src/webhooks/signature.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { transition } from '../helpers/teardowns.js';
import {
  commitChange,
  createEndpoint,
  patchTeardown,
  createWebhookApp,
  type Receiver,
  type Received,
  startReceiver,
  until,
} from './helpers.js';

type WebhookApp = Awaited<ReturnType<typeof createWebhookApp>>;

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('webhook delivery', { timeout: 90_000 }, () => {
  let t: WebhookApp;
  let seller: Principal;
  let receiver: Receiver;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    // receiver.test is loopback (admitted here: WEBHOOK_ALLOW_PRIVATE_URLS=true); any other name does not resolve.
    t = await createWebhookApp({
      webhookResolver: async (host) => {
        if (host === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    t.time.reset();
    while (receivers.length) await receivers.pop()?.close();
  });

  /** A new organization (its own event stream) and a new receiver for each test. */
  async function fresh(path?: string) {
    seller = await createSeller(t);
    receiver = await startReceiver(path);
    receivers.push(receiver);
  }

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url: `/public/v1${url}`,
      headers: seller.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const endpointState = async (id: string) => (await call('GET', `/webhook-endpoints/${id}`)).json();
  const deliveries = async (id: string, query = '') => (await call('GET', `/webhook-endpoints/${id}/deliveries${query}`)).json();

  it('POSTs each committed event once, in commit order, signed so that standardwebhooks verifies it', async () => {
    await fresh();
    const before = await commitChange(t, seller); // before the endpoint exists: never sent
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await commitChange(t, seller));
    await until(() => receiver.delivered().length >= 5, 15_000, 'five deliveries');
    const got = receiver.delivered();
    expect(got.map((r) => r.json.data.entity_id)).toEqual(ids);
    expect(got.map((r) => r.json.data.entity_id)).not.toContain(before);

    const wh = new Webhook(endpoint.secret);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toMatch(/^aviation-partner-api-webhooks\//);
      expect(r.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(wh.verify(r.body, headersOf(r))).toEqual(r.json);
      expect(Object.keys(r.json)).toEqual(['type', 'timestamp', 'data']);
      expect(r.json.type).toBe('teardown.created');
      expect(new Date(r.json.timestamp).toISOString()).toBe(r.json.timestamp);
    }
    // A tampered body or a foreign secret does not verify.
    expect(() => wh.verify(`${got[0].body} `, headersOf(got[0]))).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got[0].body, headersOf(got[0]))).toThrow();
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(5);

    // The delivery log: newest first, one success per event.
    await until(async () => (await deliveries(endpoint.id)).items.length === 5, 5000, 'five logged attempts');
    const log = await deliveries(endpoint.id, '?per_page=2&page=1');
    expect(log).toMatchObject({ total: 5, page: 1, per_page: 2, pages: 3 });
    expect(log.items[0]).toMatchObject({
      event_id: got[4].headers['webhook-id'],
      event_type: 'teardown.created',
      attempt: 1,
      succeeded: true,
      status_code: 204,
      error: null,
      duration_ms: expect.any(Number),
      next_retry_at: null,
    });
    expect(log.items[1].event_id).toBe(got[3].headers['webhook-id']);
  });

  it('retries on 500 with the same webhook-id, and later events wait behind the head event', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    receiver.respond((_r, index) => (index < 2 ? 500 : 204));
    const ids = [await commitChange(t, seller), await commitChange(t, seller), await commitChange(t, seller)];
    await until(() => receiver.delivered().length >= 3, 20_000, 'three deliveries after two failures');
    expect(receiver.received.map((r) => [r.json.data.entity_id, r.status])).toEqual([
      [ids[0], 500],
      [ids[0], 500],
      [ids[0], 204],
      [ids[1], 204],
      [ids[2], 204],
    ]);
    const head = receiver.received.slice(0, 3);
    expect(new Set(head.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // The retry schedule is 1 s, 1 s.
    expect(head[1].at - head[0].at).toBeGreaterThanOrEqual(900);
    const wh = new Webhook(endpoint.secret);
    for (const r of receiver.received) expect(() => wh.verify(r.body, headersOf(r))).not.toThrow();

    await until(async () => (await deliveries(endpoint.id)).items.length === 5, 5000, 'five logged attempts');
    const log = (await deliveries(endpoint.id)).items.reverse();
    expect(log.map((d: { attempt: number; status_code: number }) => [d.attempt, d.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
      [1, 204],
      [1, 204],
    ]);
    expect(log[0]).toMatchObject({ succeeded: false, error: 'HTTP 500', next_retry_at: expect.any(String) });
    expect(new Date(log[0].next_retry_at).getTime() - new Date(log[0].created_at).getTime()).toBe(1000);
    expect(await endpointState(endpoint.id)).toMatchObject({ enabled: true, failing_since: null, consecutive_failures: 0 });
  });

  it('retries after a timeout (no answer within WEBHOOK_TIMEOUT_MS), then delivers', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    receiver.respond((_r, index) => (index === 0 ? 'hang' : 200));
    const id = await commitChange(t, seller);
    await until(() => receiver.delivered().length >= 1, 20_000, 'delivery after a timeout');
    expect(receiver.received.map((r) => r.json.data.entity_id)).toEqual([id, id]);
    await until(async () => (await deliveries(endpoint.id)).items.length === 2, 5000, 'two logged attempts');
    const log = (await deliveries(endpoint.id)).items.reverse();
    expect(log[0]).toMatchObject({
      attempt: 1,
      succeeded: false,
      status_code: null,
      error: expect.stringMatching(/ETIMEDOUT|no answer within 2000 ms/),
    });
    expect(log[0].duration_ms).toBeGreaterThanOrEqual(1900);
    expect(log[1]).toMatchObject({ attempt: 2, succeeded: true, status_code: 200 });
  });

  it('connects to a host name through the guarded lookup, at the address it checked', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: `http://receiver.test:${receiver.port}/hooks/marketplace` });
    const id = await commitChange(t, seller);
    await until(() => receiver.delivered().length >= 1, 20_000, 'a delivery by host name');
    expect(receiver.delivered()[0].json.data.entity_id).toBe(id);
    expect(receiver.delivered()[0].headers.host).toBe(`receiver.test:${receiver.port}`);
    expect(() => new Webhook(endpoint.secret).verify(receiver.delivered()[0].body, headersOf(receiver.delivered()[0]))).not.toThrow();
  });

  it('counts a redirect and a connection refused as failures', async () => {
    await fresh();
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close(); // nothing listens there any more
    const endpoint = await createEndpoint(t, seller, { url });
    receiver.respond(302);
    await commitChange(t, seller);
    await until(async () => (await deliveries(endpoint.id)).items.length >= 1, 20_000, 'a failed attempt');
    expect((await deliveries(endpoint.id)).items[0]).toMatchObject({
      succeeded: false,
      status_code: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });

    const redirected = await createEndpoint(t, seller, { url: receiver.url });
    await commitChange(t, seller);
    await until(async () => (await deliveries(redirected.id)).items.length >= 1, 20_000, 'a redirected attempt');
    expect((await deliveries(redirected.id)).items[0]).toMatchObject({ succeeded: false, status_code: 302, error: 'HTTP 302' });
    await call('DELETE', `/webhook-endpoints/${endpoint.id}`);
    await call('DELETE', `/webhook-endpoints/${redirected.id}`);
  });

  it('disables an endpoint that answers 410 at once; re-enabling resumes from that event', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    receiver.respond(410);
    const first = await commitChange(t, seller);
    await until(async () => (await endpointState(endpoint.id)).enabled === false, 20_000, 'the endpoint disabled');
    const state = await endpointState(endpoint.id);
    expect(state).toMatchObject({ enabled: false, disabled_reason: 'endpoint_answered_410', disabled_at: expect.any(String) });
    expect(receiver.received).toHaveLength(1);
    expect((await deliveries(endpoint.id)).items[0]).toMatchObject({ status_code: 410, next_retry_at: null });

    // Disabled: later events wait.
    const second = await commitChange(t, seller);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).toHaveLength(1);

    receiver.respond(204);
    const resumed = await call('PATCH', `/webhook-endpoints/${endpoint.id}`, { enabled: true });
    expect(resumed.json()).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    await until(() => receiver.delivered().length >= 2, 20_000, 'resumed deliveries');
    expect(receiver.delivered().map((r) => r.json.data.entity_id)).toEqual([first, second]);
  });

  it('disables an endpoint failing for 3 days (test clock), with an audit row', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    receiver.respond(503);
    await commitChange(t, seller);
    await until(async () => (await endpointState(endpoint.id)).consecutive_failures >= 2, 20_000, 'two failed attempts');
    const failing = await endpointState(endpoint.id);
    expect(failing).toMatchObject({ enabled: true, failing_since: expect.any(String) });
    expect(failing.consecutive_failures).toBeGreaterThanOrEqual(2);

    t.time.jump(3 * 24 * 3600_000);
    await until(async () => (await endpointState(endpoint.id)).enabled === false, 20_000, 'the endpoint disabled after 3 days');
    expect(await endpointState(endpoint.id)).toMatchObject({ disabled_reason: 'failing_for_3_days' });
    const audit = (await t.admin('GET', `/admin/v1/audit-events?entity_id=${endpoint.id}`)).json().items;
    expect(audit[0]).toMatchObject({
      action: 'webhook_endpoint.disabled',
      metadata: { reason: 'failing_for_3_days', job: 'webhook_delivery' },
    });
    expect(JSON.stringify(audit)).not.toContain(endpoint.secret.slice(6));
  });

  it('signs with the new and the previous secret for 24 hours after a rotation, then with the new one only', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    const rotated = (await call('POST', `/webhook-endpoints/${endpoint.id}/rotate-secret`)).json();
    await commitChange(t, seller);
    await until(() => receiver.delivered().length >= 1, 20_000, 'a delivery after rotation');
    const both = receiver.delivered()[0];
    const signatures = String(both.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const [id, ts] = [String(both.headers['webhook-id']), Number(both.headers['webhook-timestamp'])];
    expect(signatures[0]).toBe(sign(rotated.secret, id, ts, both.body));
    expect(signatures[1]).toBe(sign(endpoint.secret, id, ts, both.body));
    // Each secret verifies the request on its own.
    expect(() => new Webhook(rotated.secret).verify(both.body, headersOf(both))).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(both.body, headersOf(both))).not.toThrow();

    t.time.jump(24 * 3600_000 + 1000);
    await commitChange(t, seller);
    await until(() => receiver.delivered().length >= 2, 20_000, 'a delivery 24 h later');
    const after = receiver.delivered()[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    // standardwebhooks checks the timestamp against the real clock: verify as of the jumped time.
    const sent = Number(after.headers['webhook-timestamp']) * 1000;
    const now = vi.spyOn(Date, 'now').mockReturnValue(sent);
    try {
      expect(() => new Webhook(rotated.secret).verify(after.body, headersOf(after))).not.toThrow();
      expect(() => new Webhook(endpoint.secret).verify(after.body, headersOf(after))).toThrow();
    } finally {
      now.mockRestore();
    }
  });

  it('sends only the event types an endpoint asked for, skipping the others without holding anything up', async () => {
    await fresh();
    const all = await startReceiver();
    receivers.push(all);
    const only = await createEndpoint(t, seller, { url: receiver.url, event_types: ['teardown.updated'] });
    await createEndpoint(t, seller, { url: all.url });
    // created, updated, status_changed, updated, deleted: all through the partner API.
    const id = await commitChange(t, seller);
    await patchTeardown(t, seller, id);
    expect((await transition(t, seller, id, 'start_processing')).statusCode).toBe(200);
    await patchTeardown(t, seller, id);
    expect((await call('DELETE', `/teardowns/${id}`)).statusCode).toBe(204);
    const types = ['teardown.created', 'teardown.updated', 'teardown.status_changed', 'teardown.updated', 'teardown.deleted'];
    await until(() => all.delivered().length >= 5, 20_000, 'every event at the unfiltered endpoint');
    await until(() => receiver.delivered().length >= 2, 20_000, 'the filtered deliveries');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.delivered().map((r) => r.json.type)).toEqual(['teardown.updated', 'teardown.updated']);
    expect(all.delivered().map((r) => r.json.type)).toEqual([...types]);
    // The skipped ones moved the cursor: the admin view shows it at the newest event.
    const admin = (await t.admin('GET', `/admin/v1/webhook-endpoints?org_id=${seller.orgId}`)).json().items;
    expect(admin.find((e: { id: string }) => e.id === only.id).last_delivered_seq).toBe(5);
  });

  it('sends nothing to a disabled endpoint and catches up, in order, once it is enabled again', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    expect((await call('PATCH', `/webhook-endpoints/${endpoint.id}`, { enabled: false })).json().enabled).toBe(false);
    const ids = [await commitChange(t, seller), await commitChange(t, seller), await commitChange(t, seller)];
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.received).toHaveLength(0);
    await call('PATCH', `/webhook-endpoints/${endpoint.id}`, { enabled: true });
    await until(() => receiver.delivered().length >= 3, 20_000, 'the backlog');
    expect(receiver.delivered().map((r) => r.json.data.entity_id)).toEqual(ids);
  });

  it('sends a webhook.test event on request and answers the outcome; it never enters the event log', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    const res = await call('POST', `/webhook-endpoints/${endpoint.id}/test`);
    expect(res.statusCode).toBe(200);
    const result = res.json();
    expect(result).toMatchObject({ succeeded: true, status_code: 204, error: null, event_id: expect.any(String) });
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(got.json).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    expect(got.headers['webhook-id']).toBe(result.event_id);
    expect(() => new Webhook(endpoint.secret).verify(got.body, headersOf(got))).not.toThrow();

    receiver.respond(500);
    const failed = (await call('POST', `/webhook-endpoints/${endpoint.id}/test`)).json();
    expect(failed).toMatchObject({ succeeded: false, status_code: 500, error: 'HTTP 500' });
    const log = await deliveries(endpoint.id);
    expect(log.items.map((d: { event_type: string }) => d.event_type)).toEqual(['webhook.test', 'webhook.test']);
    // Never in the log of events, so never in the feed; no retry either.
    const stored = await t.app.ctx.db.selectFrom('events').select('id').where('org_id', '=', seller.orgId).execute();
    expect(stored).toEqual([]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received).toHaveLength(2);
  });

  it('lets an operator replay an endpoint from an event: it and every later one again, in order', async () => {
    await fresh();
    const endpoint = await createEndpoint(t, seller, { url: receiver.url });
    const ids = [await commitChange(t, seller), await commitChange(t, seller), await commitChange(t, seller)];
    await until(() => receiver.delivered().length >= 3, 20_000, 'three deliveries');
    const secondEventId = String(receiver.delivered()[1].headers['webhook-id']);

    const replay = await t.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`, { from_event_id: secondEventId });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toMatchObject({ id: endpoint.id, enabled: true, last_delivered_seq: 1 });
    await until(() => receiver.delivered().length >= 5, 20_000, 'the replayed deliveries');
    expect(receiver.delivered().map((r) => r.json.data.entity_id)).toEqual([...ids, ids[1], ids[2]]);
    expect(String(receiver.delivered()[3].headers['webhook-id'])).toBe(secondEventId);

    const audit = (await t.admin('GET', `/admin/v1/audit-events?entity_id=${endpoint.id}`)).json().items;
    expect(audit[0]).toMatchObject({ action: 'webhook_endpoint.replayed', metadata: { from_event_id: secondEventId, via_admin: true } });
    // The last attempt is logged just after its answer arrived.
    await until(
      async () => (await t.admin('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?per_page=100`)).json().items.length === 5,
      5000,
      'five logged attempts',
    );

    // An event of another organization, or an unknown one: 404, nothing changes.
    const stranger = await createSeller(t);
    const foreign = await commitChange(t, stranger);
    void foreign;
    const foreignEvent = await t.app.ctx.db
      .selectFrom('events')
      .select('id')
      .where('org_id', '=', stranger.orgId)
      .executeTakeFirstOrThrow();
    expect(
      (await t.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`, { from_event_id: foreignEvent.id })).statusCode,
    ).toBe(404);
    expect(
      (await t.admin('POST', `/admin/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/replay`, { from_event_id: foreignEvent.id }))
        .statusCode,
    ).toBe(404);
  });
});

describe('webhook delivery-time address check', { timeout: 60_000 }, () => {
  let t: WebhookApp;
  let receiver: Receiver;
  // A name that answers a public address when the URL is checked and loopback afterwards (DNS rebinding).
  let answer: LookupAddress[] = [{ address: '93.184.216.34', family: 4 }];

  beforeAll(async () => {
    t = await createWebhookApp({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' },
      webhookResolver: async (host) => {
        if (host !== 'rebind.test') throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return answer;
      },
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('refuses to connect when the host resolves to a private address at delivery, and retries later', async () => {
    const seller = await createSeller(t);
    const endpoint = await createEndpoint(t, seller, { url: `https://rebind.test:${receiver.port}/hooks` });
    answer = [{ address: '127.0.0.1', family: 4 }];
    await commitChange(t, seller);
    const log = await until(
      async () => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/public/v1/webhook-endpoints/${endpoint.id}/deliveries`,
          headers: seller.headers,
        });
        return res.json().items.length >= 1 ? res.json() : undefined;
      },
      10_000,
      'a refused attempt',
    );
    expect(log.items[0]).toMatchObject({
      succeeded: false,
      status_code: null,
      error: expect.stringMatching(/^refused: .*127\.0\.0\.1 is a loopback or private address/),
    });
    expect(log.items[0].next_retry_at).toEqual(expect.any(String));
    expect(receiver.received).toHaveLength(0);

    // The test send goes through the same guard.
    const test = await t.app.inject({ method: 'POST', url: `/public/v1/webhook-endpoints/${endpoint.id}/test`, headers: seller.headers });
    expect(test.json()).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^refused: /) });
    expect(receiver.received).toHaveLength(0);
    await t.app.inject({ method: 'DELETE', url: `/public/v1/webhook-endpoints/${endpoint.id}`, headers: seller.headers });
  });
});
