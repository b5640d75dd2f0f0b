// What one 1 MB upload costs in CPU, and where: the service process, the PostgreSQL server and the
// load generator, against the upload floor under the same load. Ratios of req/s move by ten points
// between runs of the same code on a shared two-core machine; CPU time per upload, read from /proc
// for each process, says which side pays for what.
//
//   node --import tsx bench/upload-cost.ts             # service on PGlite (in memory), then the floor
//   TEST_BACKEND=postgres TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node --import tsx bench/upload-cost.ts
//   UPLOAD_COST_SECONDS=8 UPLOAD_COST_ROUNDS=3 ...     # measured seconds per side, rounds (service, floor, ...)
//   TEST_BACKEND=postgres TEST_DATABASE_URL=... node --import tsx bench/upload-cost.ts update
//                                                      # the PostgreSQL backend's CPU for the upload's UPDATE, by part
//
// The service runs from the sources (the test app: migrations, a seller, 50 teardowns), its files
// and the floor's under TMPDIR; TMPDIR=/dev/shm keeps the disk's write-back out of the figures.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { MULTIPART_CONTENT_TYPE, multipartPdf } from './multipart.js';
import { freePort } from './processes.js';

const SECONDS = Number(process.env.UPLOAD_COST_SECONDS ?? 8);
const ROUNDS = Number(process.env.UPLOAD_COST_ROUNDS ?? 2);
const CONNECTIONS = 50;
const RECORDS = 50;

/** Child mode: the service from the sources, on a free port; prints where to send uploads. */
async function serve() {
  const { createTestApp } = await import('../test/helpers/app.js');
  const { createSeller } = await import('../test/helpers/factories.js');
  const { createTeardown } = await import('../test/helpers/teardowns.js');
  const t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' } });
  const seller = await createSeller(t);
  const ids: string[] = [];
  for (let i = 0; i < RECORDS; i++) ids.push((await createTeardown(t, seller)).teardown_id);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  process.stdout.write(
    `${JSON.stringify({ port, headers: seller.headers, paths: ids.map((id) => `/public/v1/teardown/documents/${id}`) })}\n`,
  );
  process.once('SIGTERM', () => void t.close().then(() => process.exit(0)));
}

/** utime + stime of a process in clock ticks (100 per second on Linux); 0 once it is gone. */
function cpuTicks(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Every PostgreSQL server process of the machine (the backends, the WAL writer, the checkpointer...). */
function postgresTicks(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) ticks += cpuTicks(pid);
    } catch {}
  }
  return ticks;
}

interface Target {
  pid: number;
  port: number;
  headers: Record<string, string>;
  paths: string[];
  stop(): Promise<void>;
}

async function startService(): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  const { port, headers, paths } = JSON.parse(line) as Omit<Target, 'pid' | 'stop'>;
  return { pid: child.pid as number, port, headers, paths, stop: () => stopChild(child) };
}

async function startFloor(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'upload-floor-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/floors/upload.ts'], {
    stdio: 'inherit',
    env: { ...process.env, PORT: String(port), FLOOR_UPLOAD_DIR: dir },
  });
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (tries > 100) throw new Error('the floor did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const paths = Array.from({ length: RECORDS }, (_, i) => `/upload/record-${i}`);
  return {
    pid: child.pid as number,
    port,
    headers: {},
    paths,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function stopChild(child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const body = multipartPdf(1024 * 1024);

function load(target: Target, seconds: number) {
  let next = 0;
  return autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          method: 'POST',
          path: target.paths[next++ % target.paths.length],
          headers: { ...target.headers, 'content-type': MULTIPART_CONTENT_TYPE },
          body,
        }),
      },
    ],
  });
}

async function measure(name: string, start: () => Promise<Target>) {
  const target = await start();
  try {
    await load(target, 2); // warm-up
    const before = { own: cpuTicks(target.pid), postgres: postgresTicks(), loadgen: process.cpuUsage() };
    const result = await load(target, SECONDS);
    const ok = result['2xx'];
    const ms = (ticks: number) => ((ticks * 10) / Math.max(ok, 1)).toFixed(2);
    const loadgen = process.cpuUsage(before.loadgen);
    console.log(
      `| ${name} | ${Math.round(result.requests.average)} | ${ms(cpuTicks(target.pid) - before.own)} | ${ms(postgresTicks() - before.postgres)} | ${((loadgen.user + loadgen.system) / 1000 / Math.max(ok, 1)).toFixed(2)} | ${result.non2xx} / ${ok + result.non2xx} |`,
    );
  } finally {
    await target.stop();
  }
}

/**
 * The backend's CPU time per statement (autocommit, one connection): the UPDATE an upload makes
 * (its array append and updated_at), the same without the teardown_counts trigger, and without
 * updated_at (which, being indexed, makes every such UPDATE write a new entry in every index).
 */
async function updateCost() {
  if (process.env.TEST_BACKEND !== 'postgres') throw new Error('update: set TEST_BACKEND=postgres and TEST_DATABASE_URL');
  const pg = (await import('pg')).default;
  const { createTestApp } = await import('../test/helpers/app.js');
  const { createSeller } = await import('../test/helpers/factories.js');
  const { createTeardown } = await import('../test/helpers/teardowns.js');
  const t = await createTestApp();
  const client = new pg.Client({ connectionString: (t.database as { url?: string }).url });
  try {
    const seller = await createSeller(t);
    const ids: string[] = [];
    for (let i = 0; i < RECORDS; i++)
      ids.push((await createTeardown(t, seller, { description: 'Narrowbody part-out: engines, landing gear, APU.' })).teardown_id);
    await client.connect();
    const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const append = 'documents = array_append(coalesce(documents, $3::text[]), $2::text)';
    async function cost(name: string, text: string, n = 3000) {
      await client.query('UPDATE teardowns SET documents = NULL');
      const ticks = cpuTicks(backend);
      const started = performance.now();
      for (let i = 0; i < n; i++)
        await client.query(text, [ids[i % ids.length], `https://files.example/media/teardowns/x/documents/${i}_f.pdf`, '{}']);
      const us = (((cpuTicks(backend) - ticks) * 10) / n) * 1000;
      console.log(`| ${name} | ${us.toFixed(0)} | ${(((performance.now() - started) / n) * 1000).toFixed(0)} |`);
    }
    console.log('| statement (autocommit) | backend CPU µs | wall µs |');
    console.log('|---|---:|---:|');
    for (let round = 0; round < ROUNDS; round++) {
      await cost(
        'SELECT row_version by id',
        'SELECT row_version FROM teardowns WHERE id = $1 AND $2::text IS NOT NULL AND $3::text[] IS NOT NULL',
      );
      await cost("the upload's UPDATE", `UPDATE teardowns SET ${append}, updated_at = clock_timestamp() WHERE id = $1`);
      await client.query('ALTER TABLE teardowns DISABLE TRIGGER teardown_counts_update');
      await cost('… without the teardown_counts trigger', `UPDATE teardowns SET ${append}, updated_at = clock_timestamp() WHERE id = $1`);
      await client.query('ALTER TABLE teardowns ENABLE TRIGGER teardown_counts_update');
      await cost('… without updated_at', `UPDATE teardowns SET ${append} WHERE id = $1`);
    }
  } finally {
    await client.end().catch(() => {});
    await t.close();
  }
}

if (process.argv[2] === 'serve') await serve();
else if (process.argv[2] === 'update') await updateCost();
else {
  console.log(
    `backend ${process.env.TEST_BACKEND === 'postgres' ? 'PostgreSQL' : 'PGlite (in memory)'}; ${CONNECTIONS} connections, ${SECONDS} s per side; TMPDIR ${tmpdir()}`,
  );
  console.log('| side | req/s | its process, CPU ms per upload | PostgreSQL server | load generator | non-2xx |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (let round = 0; round < ROUNDS; round++) {
    await measure('service', startService);
    await measure('floor', startFloor);
  }
}
