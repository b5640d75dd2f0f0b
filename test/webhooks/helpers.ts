// Webhook test fixtures: a real HTTP receiver on loopback, a clock that follows real time (the
// worker's schedule reads ctx.clock), and ways to commit events and wait for their delivery.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type TestApp, type TestAppOptions, createTestApp } from '../helpers/app.js';
import type { Principal } from '../helpers/factories.js';
import { createTeardown } from '../helpers/teardowns.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> & { entity_id?: string } };
  /** Date.now() when the request's body had fully arrived. */
  at: number;
  /** The status this receiver answered. */
  status: number;
}

/** What the receiver does with a request: answer a status, or never answer ('hang'). */
export type Behaviour = number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  /** Every request that got an answer (or hung), in arrival order. */
  received: Received[];
  /** 2xx-answered requests only. */
  delivered(): Received[];
  /** Sets what the next requests get: a function of the request, or one behaviour for all. */
  respond(behaviour: Behaviour | ((r: Omit<Received, 'status'>, index: number) => Behaviour)): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks/marketplace'): Promise<Receiver> {
  let decide: (r: Omit<Received, 'status'>, index: number) => Behaviour = () => 204;
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Received['json'];
      try {
        json = JSON.parse(body);
      } catch {
        json = { type: '(unparsable)', timestamp: '', data: {} };
      }
      const request = { headers: req.headers, body, json, at: Date.now() };
      const behaviour = decide(request, received.length);
      received.push({ ...request, status: behaviour === 'hang' ? 0 : behaviour });
      if (behaviour === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(behaviour, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    delivered: () => received.filter((r) => r.status >= 200 && r.status < 300),
    respond(behaviour) {
      decide = typeof behaviour === 'function' ? behaviour : () => behaviour;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Makes a test app's manual clock follow real time, so that retry schedules run out by themselves;
 * `jump` moves it ahead (3 days, 24 hours) and it keeps following real time from there.
 */
export function followRealTime(clock: TestApp['clock']) {
  let offset = 0;
  const tick = () => clock.set(new Date(Date.now() + offset));
  tick();
  const timer = setInterval(tick, 5);
  return {
    jump(ms: number) {
      offset += ms;
      tick();
    },
    /** Back to real time. */
    reset() {
      offset = 0;
      tick();
    },
    stop: () => clearInterval(timer),
  };
}

/** The environment of webhook tests: loopback receivers allowed, a short poll and retry schedule. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1',
  WEBHOOK_TIMEOUT_MS: '2000',
};

export async function createWebhookApp(options: TestAppOptions = {}) {
  const t = await createTestApp({ ...options, env: { ...WEBHOOK_TEST_ENV, ...options.env } });
  const time = followRealTime(t.clock);
  const closeApp = t.close;
  return Object.assign(t, {
    time,
    async close() {
      time.stop();
      await closeApp();
    },
  });
}

export async function until<T>(
  probe: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<Exclude<T, false | undefined | null>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | undefined | null>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export async function createEndpoint(t: TestApp, seller: Principal, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/public/v1/webhook-endpoints', headers: seller.headers, payload: body });
  if (res.statusCode !== 201) throw new Error(`create endpoint: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; secret: string; url: string; enabled: boolean };
}

/** Commits one teardown.created event through the partner API; answers the teardown id (the event's data.entity_id). */
export async function commitChange(t: TestApp, seller: Principal): Promise<string> {
  const created = await createTeardown(t, seller);
  return created.teardown_id;
}

/** PATCHes a teardown through the partner API (one teardown.updated event). */
export async function patchTeardown(
  t: TestApp,
  seller: Principal,
  id: string,
  payload: Record<string, unknown> = { description: `edit ${Date.now()}` },
) {
  const res = await t.app.inject({ method: 'PATCH', url: `/public/v1/teardowns/${id}`, headers: seller.headers, payload });
  if (res.statusCode !== 200) throw new Error(`patch teardown: ${res.statusCode} ${res.body}`);
  return res.json();
}
