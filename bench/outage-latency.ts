// What partners wait for while PostgreSQL is black-holed (packets dropped, no reset), with the
// default deadlines: the app's connections go through a TCP proxy that stops forwarding; 40
// requests are sent over 4 seconds; each one's status and time to answer are reported, then the
// time /readyz takes, then how soon after the proxy forwards again requests succeed.
//
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/outage-latency.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_DEADLINES } from '../src/db/database.js';

process.env.TEST_BACKEND = 'postgres';
const { createPostgresDatabase, createTestApp } = await import('../test/helpers/app.js');
const { createSeller } = await import('../test/helpers/factories.js');
const { startFaultProxy, throughProxy } = await import('../test/helpers/fault-proxy.js');

const direct = new URL(process.env.TEST_DATABASE_URL as string);
const proxy = await startFaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
const database = await createPostgresDatabase();
const t = await createTestApp({ postgres: database, connectThrough: (url) => throughProxy(url, proxy), deadlines: DEFAULT_DEADLINES });
try {
  const seller = await createSeller(t);
  const list = () => t.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers });
  for (let i = 0; i < 20; i++) await list(); // warm pool: idle connections that will go stale
  proxy.blackhole();
  const outcomes = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      await sleep(i * 100);
      const started = performance.now();
      const res = await list();
      return { status: res.statusCode, ms: performance.now() - started };
    }),
  );
  const started = performance.now();
  const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
  const readyMs = performance.now() - started;
  const ms = outcomes.map((o) => o.ms).sort((x, y) => x - y);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]?.toFixed(0);
  const statuses = [...new Set(outcomes.map((o) => o.status))].join(', ');
  console.log(`black-holed: statuses ${statuses}; answer p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
  console.log(`/readyz: ${ready.statusCode} in ${readyMs.toFixed(0)} ms`);
  proxy.restore();
  const back = performance.now();
  while ((await list()).statusCode !== 200) await sleep(50);
  console.log(`first 200 after the network came back: ${(performance.now() - back).toFixed(0)} ms`);
} finally {
  await t.close();
  await proxy.close();
}
