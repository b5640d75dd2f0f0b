// PostgreSQL faults, injected through a TCP proxy the test controls or by terminating the service's
// own backends: the process survives, answers 503 with Retry-After within its deadlines, writes
// nothing by half, and recovers by itself once the database is back.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, backend, createPostgresDatabase, createTestApp } from '../helpers/app.js';
import { type Principal, createSeller } from '../helpers/factories.js';
import { type FaultProxy, startFaultProxy, throughProxy } from '../helpers/fault-proxy.js';
import { teardownBody } from '../helpers/teardowns.js';

const DEADLINES = { connectTimeoutMs: 500, statementTimeoutMs: 1000, idleInTransactionTimeoutMs: 2000 };

const create = (t: TestApp, p: Principal) =>
  t.app.inject({ method: 'POST', url: '/public/v1/teardowns', headers: p.headers, payload: teardownBody() });

function expectOutage(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.headers['x-request-id']).toBeTruthy();
  expect(res.json()).toEqual({
    detail: { error_code: 'service_unavailable', message: expect.stringContaining('database'), dependency: 'database', retry_after: 5 },
  });
}

describe.runIf(backend() === 'postgres')('PostgreSQL faults', () => {
  let proxy: FaultProxy;
  let t: TestApp;
  let database: { url: string; drop: () => Promise<void> };
  let seller: Principal;

  beforeAll(async () => {
    const direct = new URL(process.env.TEST_DATABASE_URL as string);
    proxy = await startFaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    database = await createPostgresDatabase();
    t = await createTestApp({ postgres: database, connectThrough: (url) => throughProxy(url, proxy), deadlines: DEADLINES });
    seller = await createSeller(t);
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  it('survives its connections being terminated under concurrent writes, and loses or halves no write', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const created: string[] = [];
    const statuses: number[] = [];
    try {
      for (let round = 0; round < 5; round++) {
        const writes = Array.from({ length: 8 }, () => create(t, seller));
        await sleep(5);
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'partner-api' AND pid <> pg_backend_pid()",
        );
        for (const res of await Promise.all(writes)) {
          statuses.push(res.statusCode);
          if (res.statusCode === 201) created.push(res.json().teardown_id);
          else expectOutage(res);
        }
      }
      // The process is alive and recovers by itself: the next writes all succeed, each within the
      // retries a partner makes on 503 (a connection killed a moment ago may still be handed out once).
      const retried = async () => {
        let res = await create(t, seller);
        for (let attempt = 0; attempt < 5 && res.statusCode === 503; attempt++) {
          await sleep(200);
          res = await create(t, seller);
        }
        return res;
      };
      for (const res of await Promise.all(Array.from({ length: 8 }, retried))) {
        expect(res.statusCode).toBe(201);
        created.push(res.json().teardown_id);
      }
      // Every acknowledged write is there with its audit row; no row exists without its audit row.
      const { rows } = await admin.query(
        `SELECT t.id, count(a.id)::int AS audits FROM teardowns t
         LEFT JOIN audit_events a ON a.entity_id = t.id AND a.action = 'teardown.created' GROUP BY t.id`,
      );
      const audits = new Map(rows.map((r) => [r.id as string, r.audits as number]));
      for (const id of created) expect(audits.get(id)).toBe(1);
      for (const count of audits.values()) expect(count).toBe(1);
      expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    } finally {
      await admin.end();
    }
  });

  it('answers 503 within its deadlines while the database is black-holed, reports it in /readyz, and recovers without a restart', async () => {
    // A key never seen before, so authentication itself must reach the database.
    const fresh = await createSeller(t);
    proxy.blackhole();
    try {
      const started = Date.now();
      const [read, write, ready] = await Promise.all([
        t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: fresh.headers }),
        create(t, seller),
        t.app.inject({ method: 'GET', url: '/readyz' }),
      ]);
      const elapsed = Date.now() - started;
      expectOutage(read);
      expectOutage(write);
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', checks: { database: 'unavailable', storage: 'ok' } });
      // Bounded by the deadlines (connect 0.5 s, statement 1 s + 1 s), not by the outage.
      expect(elapsed).toBeLessThan(5000);
      // The key cache stops vouching for itself once its channel has been silent for a second.
      await sleep(1200);
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json().checks.auth_cache).toBe('off');
    } finally {
      proxy.restore();
    }
    let res = await create(t, seller);
    for (let i = 0; i < 50 && res.statusCode !== 201; i++) {
      await sleep(100);
      res = await create(t, seller);
    }
    expect(res.statusCode).toBe(201);
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: fresh.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('answers 503 when a statement passes DB_STATEMENT_TIMEOUT_MS (a row locked elsewhere), and only that request', async () => {
    // After the faults above the pool may still be replacing connections: start from a created record.
    let created = await create(t, seller);
    for (let i = 0; i < 50 && created.statusCode !== 201; i++) {
      await sleep(100);
      created = await create(t, seller);
    }
    expect(created.statusCode).toBe(201);
    const id = created.json().teardown_id as string;
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM teardowns WHERE id = $1 FOR UPDATE', [id]);
      const patched = await t.app.inject({
        method: 'PATCH',
        url: `/public/v1/teardowns/${id}`,
        headers: seller.headers,
        payload: { description: 'waits for a lock' },
      });
      expectOutage(patched);
      // The rest of the service is untouched by one slow statement.
      expect((await create(t, seller)).statusCode).toBe(201);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const detail = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: seller.headers });
    expect(detail.json().description).toBeNull();
  });

  it('answers 503 when the database resets every connection, then recovers', async () => {
    proxy.reset();
    const res = await create(t, seller);
    // The pool notices the dead connection on use: either that request fails over to a new one, or it
    // answers 503; never a 500.
    expect([201, 503]).toContain(res.statusCode);
    let after = await create(t, seller);
    for (let i = 0; i < 20 && after.statusCode !== 201; i++) {
      await sleep(100);
      after = await create(t, seller);
    }
    expect(after.statusCode).toBe(201);
  });
});
