// The embedded database runs each statement on its own turn of the event loop (db/pglite-turns.ts).
// PGlite answers in promises without any I/O, so requests queued for its one connection used to run
// back to back in one turn, and a listening socket accepts one connection per turn: a client that
// connected while requests were queued waited for all of them. Over real sockets (app.listen), as
// the accept queue is the point.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';

const QUEUED = 40;

describe.runIf(backend() === 'pglite')('embedded database: connections accepted while requests wait for it', () => {
  let t: TestApp;
  let seller: Principal;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_POLL_MS: '0' } });
    seller = await createSeller(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, headers: Record<string, string>, agent: Agent) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });

  it('a client that connects while 40 list requests are queued is answered while most of them still wait', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: QUEUED });
    const fresh = new Agent({ keepAlive: false });
    const finished: string[] = [];
    let accepted = 0;
    const countConnection = () => accepted++;
    t.app.server.on('connection', countConnection);
    let listsDone = 0;
    const lists = Array.from({ length: QUEUED }, () =>
      get('/public/v1/teardowns?page=1', seller.headers, agent).then((status) => {
        expect(status).toBe(200);
        listsDone++;
        finished.push('list');
      }),
    );
    // Connects once the 40 connections are accepted (the accept queue is first in, first out) and
    // requests wait for the database; without turns, that moment only comes once they all ran.
    while (listsDone < QUEUED && (accepted < QUEUED || (t.database.waiting?.() ?? 0) < 10))
      await new Promise((resolve) => setImmediate(resolve));
    t.app.server.off('connection', countConnection);
    const health = get('/healthz', {}, fresh).then((status) => {
      expect(status).toBe(200);
      finished.push('healthz');
    });
    await Promise.all([...lists, health]);
    agent.destroy();
    fresh.destroy();
    // Answered within a few statements, while at least ten list requests are still queued.
    expect(finished.length - 1 - finished.indexOf('healthz')).toBeGreaterThanOrEqual(10);
  });
});
