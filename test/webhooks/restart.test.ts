// The delivery of an event survives a restart of the service between its commit and its delivery:
// the real server process (PostgreSQL, and embedded PGlite on a data directory) commits a change
// while the partner's endpoint fails, is stopped before any delivery succeeded, and a new process
// delivers the event. With SIGKILL in the middle of a request the dead process's lease runs out
// (WEBHOOK_TIMEOUT_MS + 5 s) and the new process takes the endpoint over.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, backend, createPostgresDatabase } from '../helpers/app.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { teardownBody } from '../helpers/teardowns.js';
import { type Receiver, startReceiver, until } from './helpers.js';

async function json(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** An organization, a seller and a key, made through the admin API of a running process. */
async function seller(server: ServerProcess) {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const org = await json(server.baseUrl, 'POST', '/admin/v1/organizations', admin, { name: 'Restart Aviation' });
  const user = await json(server.baseUrl, 'POST', `/admin/v1/organizations/${org.id}/users`, admin, {
    email: `ops-${Date.now()}@restart.example`,
    capabilities: ['seller'],
  });
  const key = await json(server.baseUrl, 'POST', `/admin/v1/users/${user.id}/api-keys`, admin, {});
  return { authorization: `Bearer ${key.key}`, 'x-organization-id': org.id as string };
}

const variants = backend() === 'postgres' ? (['postgres'] as const) : (['pglite'] as const);

describe.each(variants)('webhook delivery across a restart (%s)', (kind) => {
  const servers: ServerProcess[] = [];
  const receivers: Receiver[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const s of servers) s.kill('SIGKILL');
    for (const r of receivers) await r.close();
    for (const c of cleanups) await c();
  });

  async function storage(): Promise<Record<string, string>> {
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      cleanups.push(database.drop);
      return { DATABASE_URL: database.url };
    }
    const dir = mkdtempSync(join(tmpdir(), 'webhook-restart-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { DATA_DIR: dir };
  }

  async function start(env: Record<string, string>) {
    const server = await startServerProcess({
      ADMIN_TOKEN,
      DEMO_ON_FIRST_START: 'false',
      SHUTDOWN_DRAIN_SECONDS: '0',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: '1000',
      ...env,
    });
    servers.push(server);
    await server.listening(60_000);
    return server;
  }

  it('a change committed while the endpoint fails is delivered by the next process (SIGTERM)', async () => {
    const env = await storage();
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.respond(503); // the partner's endpoint is briefly failing

    const first = await start(env);
    const headers = await seller(first);
    const endpoint = await json(first.baseUrl, 'POST', '/public/v1/webhook-endpoints', headers, { url: receiver.url });
    const created = await json(first.baseUrl, 'POST', '/public/v1/teardowns', headers, teardownBody('engine'));
    await until(() => receiver.received.length >= 1, 20_000, 'a failed attempt');
    first.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const failedId = receiver.received[0].headers['webhook-id'];
    expect(receiver.delivered()).toHaveLength(0);

    receiver.respond(204); // the endpoint is back while no process runs
    const attemptsWhileDown = receiver.received.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.length).toBe(attemptsWhileDown);

    const second = await start(env);
    await until(() => receiver.delivered().length >= 1, 20_000, 'the delivery by the new process');
    const delivered = receiver.delivered()[0];
    expect(delivered.json).toMatchObject({ type: 'teardown.created', data: { entity_id: created.teardown_id } });
    expect(delivered.headers['webhook-id']).toBe(failedId);
    const log = await until(
      async () => {
        const page = await json(second.baseUrl, 'GET', `/public/v1/webhook-endpoints/${endpoint.id}/deliveries`, headers);
        return page.items[0]?.succeeded ? page : undefined;
      },
      10_000,
      'the logged delivery',
    );
    expect(log.items[0]).toMatchObject({ succeeded: true, status_code: 204 });
    expect(log.items.at(-1)).toMatchObject({ succeeded: false, status_code: 503, attempt: 1 });
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('a process killed in the middle of a request leaves a lease that runs out; the next process delivers (SIGKILL)', async () => {
    const env = await storage();
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.respond('hang'); // the request is in flight when the process dies

    const first = await start(env);
    const headers = await seller(first);
    await json(first.baseUrl, 'POST', '/public/v1/webhook-endpoints', headers, { url: receiver.url });
    const created = await json(first.baseUrl, 'POST', '/public/v1/teardowns', headers, teardownBody('engine'));
    await until(() => receiver.received.length >= 1, 20_000, 'the request in flight');
    first.kill('SIGKILL');
    await first.exited;
    receiver.respond(200);

    const restartedAt = Date.now();
    await start(env);
    await until(() => receiver.delivered().length >= 1, 30_000, 'the delivery after the lease ran out');
    expect(receiver.delivered()[0].json.data.entity_id).toBe(created.teardown_id);
    // Not before the dead process's lease (1 s timeout + 5 s) was over.
    expect(receiver.delivered()[0].at - receiver.received[0].at).toBeGreaterThanOrEqual(5500);
    expect(receiver.delivered()[0].at).toBeGreaterThan(restartedAt);
  }, 120_000);
});
