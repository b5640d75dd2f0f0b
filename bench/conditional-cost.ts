// What conditional requests and idempotency keys cost (issue 10), each against the same request
// without them, in one run, A/B alternated (A B, then B A) so neither side always runs first:
// - GET a teardown by id (200) against the same GET with a matching If-None-Match (304);
// - POST a teardown against the same POST with a fresh Idempotency-Key per request (claimed,
//   committed and stored with the response).
// The service runs in a child process (the load generator must not share its event loop), on
// PostgreSQL when TEST_DATABASE_URL is set, else on in-memory PGlite.
//
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/conditional-cost.ts [seconds]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon, { type Request } from 'autocannon';
import { teardownBody } from '../test/helpers/teardowns.js';

const READS = 200;
const CONNECTIONS = 20;

async function serve() {
  if (process.env.TEST_DATABASE_URL) process.env.TEST_BACKEND = 'postgres';
  const { createTestApp } = await import('../test/helpers/app.js');
  const { createSeller } = await import('../test/helpers/factories.js');
  const { createTeardown } = await import('../test/helpers/teardowns.js');
  const t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000000' } });
  const seller = await createSeller(t);
  const reads: { id: string; etag: string }[] = [];
  for (let i = 0; i < READS; i++) {
    const id = (await createTeardown(t, seller)).teardown_id;
    const res = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns/${id}`, headers: seller.headers });
    reads.push({ id, etag: String(res.headers.etag) });
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port, headers: seller.headers, reads, backend: t.database.kind })}\n`);
  process.on('SIGTERM', () => void t.close().then(() => process.exit(0)));
}

interface Side {
  name: string;
  request: (n: number) => Omit<Request, 'setupRequest'>;
}

async function load(url: string, side: Side, seconds: number) {
  let connection = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    setupClient: (client) => {
      let n = connection++ * 100_003;
      client.setRequests([{ setupRequest: (request) => ({ ...request, ...side.request(n++) }) }]);
    },
  });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, s]) => `${code}×${s.count}`)
    .join(' ');
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, statuses };
}

async function measure(seconds: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const { port, headers, reads, backend } = JSON.parse(line) as {
      port: number;
      headers: Record<string, string>;
      reads: { id: string; etag: string }[];
      backend: string;
    };
    const url = `http://127.0.0.1:${port}`;
    const body = JSON.stringify({ ...teardownBody('engine'), description: 'Bench: CFM56-5B teardown, LLPs traced to birth.' });
    const json = { ...headers, 'content-type': 'application/json' };
    const run = `${process.pid}-${Date.now()}`;
    const pairs: [Side, Side][] = [
      [
        { name: 'GET by id', request: (n) => ({ method: 'GET', path: `/public/v1/teardowns/${reads[n % reads.length]?.id}`, headers }) },
        {
          name: 'GET by id, If-None-Match (304)',
          request: (n) => {
            const r = reads[n % reads.length];
            return { method: 'GET', path: `/public/v1/teardowns/${r?.id}`, headers: { ...headers, 'if-none-match': r?.etag ?? '' } };
          },
        },
      ],
      [
        { name: 'POST create', request: () => ({ method: 'POST', path: '/public/v1/teardowns', headers: json, body }) },
        {
          name: 'POST create, Idempotency-Key',
          request: (n) => ({
            method: 'POST',
            path: '/public/v1/teardowns',
            headers: { ...json, 'idempotency-key': `bench-${run}-${n}` },
            body,
          }),
        },
      ],
    ];
    console.log(`backend: ${backend}; ${CONNECTIONS} connections, ${seconds} s per side and round, rounds A B then B A`);
    console.log('| scenario | without | with | ratio | p50 / p99 without | p50 / p99 with | statuses with |');
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const [a, b] of pairs) {
      await load(url, a, 2); // warm-up, thrown away
      const first = { a: await load(url, a, seconds), b: await load(url, b, seconds) };
      const second = { b: await load(url, b, seconds), a: await load(url, a, seconds) };
      const rpsA = (first.a.rps + second.a.rps) / 2;
      const rpsB = (first.b.rps + second.b.rps) / 2;
      console.log(
        `| ${b.name} | ${rpsA.toFixed(0)} req/s | ${rpsB.toFixed(0)} req/s | ${(rpsB / rpsA).toFixed(2)} | ${second.a.p50} / ${second.a.p99} ms | ${second.b.p50} / ${second.b.p99} ms | ${second.b.statuses} |`,
      );
    }
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') await serve();
else await measure(Number(process.argv[2] ?? 10));
