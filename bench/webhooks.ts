// What webhooks cost the write path, and how soon they arrive (issue 11), in one run:
// - writes per second (POST /public/v1/teardowns, one event each) of an organization with two
//   subscribed endpoints against one with none, A/B alternated (A B, then B A), the backlog of the
//   subscribed side delivered before the next measurement starts;
// - the delay from commit to delivery, p50 / p99 / max: commit = the write's response reaching the
//   load generator, delivery = the request reaching the receiver; both on this machine's clock. At
//   full write load (what piles up when writes outrun delivery), and at steady rates (autocannon
//   sends each second's quota as a burst at the start of the second).
// The service is the real server process (default settings: WEBHOOK_POLL_MS=1000, LISTEN/NOTIFY
// wake-ups on PostgreSQL); the two receivers (loopback, answering 204) run in a process of their own,
// so neither shares an event loop with the load generator.
//
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/webhooks.ts [seconds] [steady rates/s, default 10,100]
// Without TEST_DATABASE_URL it runs on embedded PGlite in a temporary data directory.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { teardownBody } from '../test/helpers/teardowns.js';

const CONNECTIONS = 20;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

// --- the receivers' process: two endpoints (/a, /b), each arrival time kept by entity id.
function receive() {
  const arrivals: Record<string, Record<string, number>> = { '/a': {}, '/b': {} };
  let duplicates = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const path = req.url ?? '';
      try {
        const id = JSON.parse(Buffer.concat(chunks).toString()).data.entity_id as string;
        const seen = arrivals[path];
        if (seen) {
          if (seen[id] !== undefined) duplicates++;
          else seen[id] = at;
        }
      } catch {
        // not an event
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message: { ask?: 'arrivals' | 'count'; reset?: boolean }) => {
    if (message.ask === 'arrivals') process.send?.({ arrivals, duplicates });
    if (message.ask === 'count')
      process.send?.({ count: Object.keys(arrivals['/a'] ?? {}).length + Object.keys(arrivals['/b'] ?? {}).length });
  });
}

// --- the load generator
type Arrivals = Record<string, Record<string, number>>;

function ask<T>(child: ReturnType<typeof fork>, question: 'arrivals' | 'count'): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send({ ask: question });
  });
}

async function api(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function seller(base: string, name: string) {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const org = await api(base, 'POST', '/admin/v1/organizations', admin, { name });
  const user = await api(base, 'POST', `/admin/v1/organizations/${org.id}/users`, admin, {
    email: `bench-${org.id}@bench.example`,
    capabilities: ['seller'],
  });
  const key = await api(base, 'POST', `/admin/v1/users/${user.id}/api-keys`, admin, {});
  return { authorization: `Bearer ${key.key}`, 'x-organization-id': org.id as string };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : Number.NaN;

const deliveryOff = process.env.BENCH_DELIVERY === 'off';

async function measure(seconds: number, steadyRates: number[]) {
  const { startServerProcess } = await import('../test/helpers/server-process.js');
  const receiver = fork(fileURLToPath(import.meta.url), ['receive'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', (m) => resolve(m as { port: number })));
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => receiver.kill()];
  try {
    let storage: Record<string, string>;
    if (process.env.TEST_DATABASE_URL) {
      process.env.TEST_BACKEND = 'postgres';
      const { createPostgresDatabase } = await import('../test/helpers/app.js');
      const database = await createPostgresDatabase();
      cleanups.push(database.drop);
      storage = { DATABASE_URL: database.url, DB_POOL_SIZE: '20' };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      storage = { DATA_DIR: dir };
    }
    const server = await startServerProcess({
      ...storage,
      ADMIN_TOKEN,
      DEMO_ON_FIRST_START: 'false',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // BENCH_DELIVERY=off: endpoints subscribed (the trigger notifies) but no instance delivers, which
      // isolates what the subscription itself costs the writes from the delivery work on the same cores.
      ...(deliveryOff ? { WEBHOOK_POLL_MS: '0' } : {}),
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
    });
    cleanups.unshift(async () => {
      server.kill('SIGTERM');
      await Promise.race([server.exited, sleep(10_000)]);
    });
    await server.listening(60_000);
    const base = server.baseUrl;
    const quiet = await seller(base, 'Bench, no endpoint');
    const subscribed = await seller(base, 'Bench, two endpoints');
    for (const path of ['/a', '/b']) {
      await api(base, 'POST', '/public/v1/webhook-endpoints', subscribed, { url: `http://127.0.0.1:${port}${path}` });
    }
    const body = JSON.stringify({ ...teardownBody('engine'), description: 'Bench: CFM56-5B teardown, LLPs traced to birth.' });
    const committedAt = new Map<string, number>();
    let expectedDeliveries = 0;

    async function writes(headers: Record<string, string>, duration: number, record: boolean, rate?: number) {
      const result = await autocannon({
        url: base,
        connections: rate ? Math.min(CONNECTIONS, 5) : CONNECTIONS,
        duration,
        ...(rate ? { overallRate: rate } : {}),
        requests: [
          {
            method: 'POST',
            path: '/public/v1/teardowns',
            headers: { ...headers, 'content-type': 'application/json' },
            body,
            onResponse: record
              ? (status, responseBody) => {
                  if (status === 201) committedAt.set(JSON.parse(responseBody).teardown_id, Date.now());
                }
              : undefined,
          },
        ],
      });
      if (record) expectedDeliveries += result['2xx'] * 2;
      return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
    }

    async function drained(timeoutMs = 120_000) {
      if (deliveryOff) return Date.now();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { count } = await ask<{ count: number }>(receiver, 'count');
        if (count >= expectedDeliveries) return Date.now();
        if (Date.now() > deadline) throw new Error(`only ${count} of ${expectedDeliveries} deliveries arrived`);
        await sleep(100);
      }
    }

    const delays = async (ids: string[]) => {
      const { arrivals, duplicates } = await ask<{ arrivals: Arrivals; duplicates: number }>(receiver, 'arrivals');
      const values: number[] = [];
      let missing = 0;
      for (const id of ids) {
        for (const path of ['/a', '/b']) {
          const at = arrivals[path]?.[id];
          if (at === undefined) missing++;
          else values.push(at - (committedAt.get(id) ?? at));
        }
      }
      values.sort((x, y) => x - y);
      return {
        n: values.length,
        p50: percentile(values, 50),
        p99: percentile(values, 99),
        max: values.at(-1) ?? Number.NaN,
        missing,
        duplicates,
      };
    };

    console.log(
      `backend: ${storage.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; ${CONNECTIONS} connections, ${seconds} s per side and round, rounds A B then B A${deliveryOff ? '; delivery off (WEBHOOK_POLL_MS=0)' : ''}`,
    );
    await writes(quiet, 2, false); // warm-up, thrown away
    await writes(subscribed, 2, true);
    await drained();
    const saturated: string[] = [];
    const run = async (side: 'A' | 'B') => {
      if (side === 'A') return writes(quiet, seconds, false);
      const before = new Set(committedAt.keys());
      const r = await writes(subscribed, seconds, true);
      for (const id of committedAt.keys()) if (!before.has(id)) saturated.push(id);
      await drained(); // the next measurement starts with no backlog
      return r;
    };
    const a1 = await run('A');
    const b1 = await run('B');
    const b2 = await run('B');
    const a2 = await run('A');
    const rpsA = (a1.rps + a2.rps) / 2;
    const rpsB = (b1.rps + b2.rps) / 2;
    const full = deliveryOff ? undefined : await delays(saturated);

    const steadyRuns: { rate: number; rps: number; ids: string[]; d: Awaited<ReturnType<typeof delays>> }[] = [];
    for (const rate of deliveryOff ? [] : steadyRates) {
      const before = new Set(committedAt.keys());
      const steady = await writes(subscribed, seconds, true, rate);
      await drained();
      const ids = [...committedAt.keys()].filter((id) => !before.has(id));
      steadyRuns.push({ rate, rps: steady.rps, ids, d: await delays(ids) });
    }

    console.log('');
    console.log(
      '| writes (POST /teardowns) | no endpoint | two endpoints | ratio | p50 / p99 no endpoint | p50 / p99 two endpoints | errors |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| full load | ${rpsA.toFixed(0)} req/s | ${rpsB.toFixed(0)} req/s | ${(rpsB / rpsA).toFixed(2)} | ${a2.p50} / ${a2.p99} ms | ${b2.p50} / ${b2.p99} ms | ${a1.non2xx + a2.non2xx + b1.non2xx + b2.non2xx} |`,
    );
    if (deliveryOff) return;
    console.log('');
    console.log('| commit → delivery | writes | deliveries | p50 | p99 | max | missing | duplicates |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| at full write load (${rpsB.toFixed(0)} writes/s) | ${saturated.length} | ${full?.n} | ${full?.p50} ms | ${full?.p99} ms | ${full?.max} ms | ${full?.missing} | ${full?.duplicates} |`,
    );
    for (const { rate, rps, ids, d } of steadyRuns) {
      console.log(
        `| at ${rate} writes/s (measured ${rps.toFixed(0)}) | ${ids.length} | ${d.n} | ${d.p50} ms | ${d.p99} ms | ${d.max} ms | ${d.missing} | ${d.duplicates} |`,
      );
    }
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

if (process.argv[2] === 'receive') receive();
else await measure(Number(process.argv[2] ?? 10), (process.argv[3] ?? '10,100').split(',').map(Number));
