// `npm run bench:pinned`: get teardown by id, the built service against the read floor (and, with
// PINNED_BASE, against the service built in another checkout), each server pinned to one core and
// the load generator to the other, in alternated segments. It reports each side's CPU time per
// request (from /proc/<pid>/stat) beside its req/s: on a two-core machine shared by the load
// generator, the servers and PostgreSQL, req/s swings from one segment to the next, while CPU per
// request pinned to a core is what a code change moves. The full bench (bench/run.ts) stays the
// reference for the targets; this is the tool for deciding whether a change to the hot path pays.
//
//   npm run build && npm run bench:pinned
//   PINNED_BASE=/path/to/other/checkout (its dist built, its node_modules installed) npm run bench:pinned
//
// PINNED_ROUNDS (6), PINNED_SECONDS (4 s measured after 1 s of warm-up), PINNED_TEARDOWNS (200);
// PINNED_AFFINITY=none runs every process unpinned, as the full bench does.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { teardownBody } from '../test/helpers/teardowns.js';
import { createPostgresDatabase } from './databases.js';
import { readOptions } from './options.js';
import { type Child, freePort } from './processes.js';
import { startFloor, startService } from './service.js';

const rounds = Number(process.env.PINNED_ROUNDS ?? 6);
const seconds = Number(process.env.PINNED_SECONDS ?? 4);
const teardowns = Number(process.env.PINNED_TEARDOWNS ?? 200);
const clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** Moves every thread of a process to one core (`taskset -a`); false where taskset is missing. */
function pin(pid: number, core: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', core, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** CPU time of a process so far, in ms: in its own code (user) and in the kernel on its behalf (system). */
function cpuTimes(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: (Number(fields[11]) * 1000) / clockTicks, system: (Number(fields[12]) * 1000) / clockTicks };
}

const totalMs = ({ user, system }: { user: number; system: number }) => user + system;

/** User + system CPU time of a process so far, in ms. */
const cpuMs = (pid: number): number => totalMs(cpuTimes(pid));

/** CPU time so far of every PostgreSQL process of this machine (the server and its backends), by pid. */
function postgresCpu(): Map<number, number> {
  const times = new Map<number, number>();
  let pids: string[] = [];
  try {
    pids = execFileSync('pgrep', ['-x', 'postgres']).toString().trim().split('\n');
  } catch {
    return times; // no local server (or no pgrep): reported as 0
  }
  for (const pid of pids) {
    try {
      times.set(Number(pid), cpuMs(Number(pid)));
    } catch {
      // the process ended meanwhile
    }
  }
  return times;
}

/** CPU ms the PostgreSQL processes alive at both readings used between them (a backend that ended is left out). */
function postgresUsed(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, ms] of after) used += ms - (before.get(pid) ?? ms);
  return used;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

interface Side {
  name: string;
  child: Child;
  prefix: string;
  rps: number[];
  usPerRequest: number[];
  /** The part of usPerRequest spent in the kernel: mostly the sockets' system calls (answers, statements). */
  systemUs: number[];
  p99: number[];
  /** CPU µs per request of PostgreSQL's processes and of this process (the load generator), and bytes per answer. */
  postgresUs: number[];
  loadUs: number[];
  bytes: number[];
}

const options = readOptions();
const database = await createPostgresDatabase(options.postgresUrl);
const dataDir = await mkdtemp(join(tmpdir(), 'bench-pinned-'));
const children: Child[] = [];
try {
  const target = { backend: 'postgres' as const, url: database.url, dataDir };
  const service = await startService(target, await freePort(), { DEMO_ON_FIRST_START: 'true' });
  children.push(service);
  // The demo account the service printed on its first start: its organization and key. It is
  // created once the listener is up, so it may follow the readiness answer by a moment.
  const printedDemo = () => service.output().match(/organization: (\S+)[\s\S]*?API key:\s+(\S+)/);
  for (let waited = 0; !printedDemo() && waited < 10_000; waited += 100) await sleep(100);
  const demo = printedDemo();
  if (!demo) throw new Error(`the service printed no demo account within 10 s:\n${service.output()}`);
  const headers: Record<string, string> = {
    authorization: `Bearer ${demo[2]}`,
    'x-organization-id': demo[1],
  };
  const ids: string[] = [];
  for (let i = 0; i < teardowns; i++) {
    // Aircraft and engines, every third with an audience: answers of four shapes, as partners' data
    // (and the full bench's) mixes them. Reads of one shape only would hide what a mix costs.
    const res = await fetch(`${service.baseUrl}/public/v1/teardowns`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        ...teardownBody(i % 2 === 0 ? 'aircraft' : 'engine'),
        msn: String(1000 + i),
        description: 'Full part-out; landing gear and APU removed first.',
      }),
    });
    if (res.status !== 201) throw new Error(`creating a teardown answered ${res.status}: ${await res.text()}`);
    const id = ((await res.json()) as { teardown_id: string }).teardown_id;
    if (i % 3 === 0) {
      // The audience is set by PATCH (or an upload), never at creation.
      const patched = await fetch(`${service.baseUrl}/public/v1/teardowns/${id}`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ audience: ['Airline', 'MRO'] }),
      });
      if (patched.status !== 200) throw new Error(`setting an audience answered ${patched.status}: ${await patched.text()}`);
    }
    ids.push(id);
  }

  const floor = await startFloor('reads', { url: database.url, uploadDir: dataDir }, await freePort());
  children.push(floor);
  const newSide = (name: string, child: Child, prefix: string): Side => ({
    name,
    child,
    prefix,
    rps: [],
    usPerRequest: [],
    systemUs: [],
    p99: [],
    postgresUs: [],
    loadUs: [],
    bytes: [],
  });
  const sides: Side[] = [newSide('floor', floor, ''), newSide('service', service, '/public/v1')];
  if (process.env.PINNED_BASE) {
    const base = resolve(process.env.PINNED_BASE);
    const other = await startService(target, await freePort(), {}, join(base, 'dist/src/server.js'));
    children.push(other);
    sides.push(newSide(`service at ${base}`, other, '/public/v1'));
  }

  // PINNED_AFFINITY=none: every process where the scheduler puts it, as in the full bench.
  const unpinned = process.env.PINNED_AFFINITY === 'none';
  const pinned = !unpinned && pin(process.pid, '0') && sides.every((side) => pin(side.child.pid, '1'));
  if (!pinned && !unpinned) console.error('taskset is missing or refused: the processes run unpinned, and CPU per request is noisier');

  // Every request reads the next teardown of the rotation, with the demo organization's key.
  let next = 0;
  const load = async (side: Side, duration: number) =>
    autocannon({
      url: side.child.baseUrl,
      connections: options.connections,
      duration,
      requests: [
        {
          setupRequest: (request) => ({ ...request, method: 'GET', headers, path: `${side.prefix}/teardowns/${ids[next++ % ids.length]}` }),
        },
      ],
    });

  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      await load(side, 1);
      const before = cpuTimes(side.child.pid);
      const postgresBefore = postgresCpu();
      const loadBefore = process.cpuUsage();
      const result = await load(side, seconds);
      const after = cpuTimes(side.child.pid);
      // Before pgrep runs again: spawning it is this process's work, not the load's.
      const loadUsage = process.cpuUsage(loadBefore);
      const postgres = postgresUsed(postgresBefore, postgresCpu());
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${side.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      const requests = result.requests.total;
      side.rps.push(result.requests.average);
      side.usPerRequest.push(((totalMs(after) - totalMs(before)) * 1000) / requests);
      side.systemUs.push(((after.system - before.system) * 1000) / requests);
      side.p99.push(result.latency.p99);
      side.postgresUs.push((postgres * 1000) / requests);
      side.loadUs.push((loadUsage.user + loadUsage.system) / requests);
      side.bytes.push(result.throughput.total / requests);
    }
  }

  const floorRps = median(sides[0].rps);
  console.log(
    `get teardown by id, ${options.connections} connections, ${rounds} rounds of ${seconds} s${pinned ? ', pinned' : ', unpinned'}; medians\n`,
  );
  // Paired: each round's figure against the floor's in the same round, whose segments ran next to
  // each other. The machine's drift from one minute to the next cancels out of these medians.
  const paired = (side: Side, of: (s: Side) => number[]) => median(of(side).map((value, round) => value / of(sides[0])[round]));
  console.log('| Side | req/s | CPU µs / request | p99 ms | req/s ratio to the floor | paired: req/s ratio | paired: CPU ratio |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const side of sides) {
    const rps = median(side.rps);
    console.log(
      `| ${side.name} | ${Math.round(rps)} | ${Math.round(median(side.usPerRequest))} | ${median(side.p99)} | ${(rps / floorRps).toFixed(2)} | ${paired(side, (s) => s.rps).toFixed(2)} | ${paired(side, (s) => s.usPerRequest).toFixed(2)} |`,
    );
  }
  // Where the rest of the machine's CPU went: the server's kernel time (its socket calls: one answer
  // and one statement per request on every side), PostgreSQL answering the same statements, and the
  // load generator reading each answer (headers included).
  console.log(
    '\n| Side | server kernel CPU µs / request | PostgreSQL CPU µs / request | load generator CPU µs / request | bytes / answer |',
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const side of sides) {
    console.log(
      `| ${side.name} | ${Math.round(median(side.systemUs))} | ${Math.round(median(side.postgresUs))} | ${Math.round(median(side.loadUs))} | ${Math.round(median(side.bytes))} |`,
    );
  }
} finally {
  for (const child of children.reverse()) await child.stop().catch(() => {});
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
}
