// How long a key revoked through one instance keeps working on another: two apps on one
// PostgreSQL database (AUTH_CACHE_SECONDS=300, so only the NOTIFY channel can explain a refusal),
// the key cached on B, revoked through A's admin API, then B polled every 5 ms until it refuses.
//
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/auth-propagation.ts [rounds]
import { setTimeout as sleep } from 'node:timers/promises';

process.env.TEST_BACKEND = 'postgres';
const { createPostgresDatabase, createTestApp } = await import('../test/helpers/app.js');
const { createSeller } = await import('../test/helpers/factories.js');

const rounds = Number(process.argv[2] ?? 30);
const database = await createPostgresDatabase();
const a = await createTestApp({ postgres: database, env: { AUTH_CACHE_SECONDS: '300' } });
const b = await createTestApp({ postgres: { url: database.url, drop: async () => {} }, env: { AUTH_CACHE_SECONDS: '300' } });
const delays: number[] = [];
try {
  for (let i = 0; i < rounds; i++) {
    const seller = await createSeller(a);
    const list = () => b.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers });
    if ((await list()).statusCode !== 200) throw new Error('key not accepted');
    const revoked = await a.admin('POST', `/admin/v1/api-keys/${seller.keyId}/revoke`);
    const committed = performance.now();
    if (revoked.statusCode !== 200) throw new Error(`revoke answered ${revoked.statusCode}`);
    while ((await list()).statusCode === 200) await sleep(5);
    delays.push(performance.now() - committed);
  }
} finally {
  await b.close();
  await a.close();
}
delays.sort((x, y) => x - y);
const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]?.toFixed(1);
console.log(`revocation through A refused by B after: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms (${rounds} rounds)`);
