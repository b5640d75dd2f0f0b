// What the embedded default (`npm start`: the built server on PGlite in a local data directory) keeps
// resident when idle, and what that memory is made of.
//
//   npm run build && npx tsx bench/memory-idle.ts
//
// Builds nothing itself: it runs dist/ as it is (run `npm run build` after changing src/). Every row
// is measured in a fresh process of its own on a fresh temporary data directory (the "restart" row
// reuses the directory of the row before it), so one measurement cannot inherit another's heap.
// Temporary directories and child processes are removed whatever ends the run, Ctrl-C included.
//
// Columns: RSS and VmHWM (peak RSS) from /proc/<pid>/status after a few idle seconds; "RSS gc" after a
// full garbage collection; heap = V8 heapUsed; external = process.memoryUsage().external (WASM memory
// included); wasm = the byteLength of the live WebAssembly.Memory buffers (PGlite's PostgreSQL heap:
// it grows and never shrinks). The probes run with --expose-gc; the server runs exactly as `npm start`
// runs it, plus a preload that answers SIGUSR2 with those numbers (and a GC for "RSS gc").
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cleanup, errorText } from './cleanup.js';
import { readMemoryKb } from './memory.js';
import { projectRoot } from './options.js';
import { freePort, killAllChildrenNow, startChild, stopAllChildren } from './processes.js';

const IDLE_MS = Number(process.env.MEMORY_IDLE_SECONDS ?? 5) * 1000;
const LOAD_REQUESTS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row {
  name: string;
  rssMb: number;
  rssAfterGcMb: number;
  hwmMb: number;
  heapUsedMb: number;
  externalMb: number;
  wasmMb: number;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * Shared by the probes and the server's preload: tracks every WebAssembly.Memory (PGlite creates its
 * own, and one more for initdb on a fresh directory) and reports the process' numbers as one JSON object.
 */
const REPORTER = `
import { readFileSync } from 'node:fs';
const memories = [];
const RealMemory = WebAssembly.Memory;
WebAssembly.Memory = new Proxy(RealMemory, {
  construct(target, args) { const m = Reflect.construct(target, args); memories.push(new WeakRef(m)); return m; },
});
const status = () => {
  const s = readFileSync('/proc/self/status', 'utf8');
  const kb = (n) => Number(new RegExp('^' + n + ':\\\\s+(\\\\d+)', 'm').exec(s)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
};
globalThis.__memoryReport = async (gc) => {
  const before = status();
  const usage = process.memoryUsage();
  const wasm = memories.reduce((sum, r) => sum + (r.deref()?.buffer.byteLength ?? 0), 0);
  gc();
  await new Promise((r) => setTimeout(r, 500));
  const after = status();
  return { rss: before.rss, hwm: after.hwm, rssAfterGc: after.rss, heapUsed: usage.heapUsed, external: usage.external, wasm };
};
`;

/** The server's preload: the reporter, answering SIGUSR2 by writing its report to MEMORY_IDLE_REPORT. */
const SERVER_PRELOAD = `${REPORTER}
import { writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
process.on('SIGUSR2', () => {
  globalThis.__memoryReport(gc).then((r) => writeFileSync(process.env.MEMORY_IDLE_REPORT, JSON.stringify(r)));
});
`;

const probes = {
  bare: '',
  imports: `await import('./dist/src/app.js');`,
  pgliteCreate: `
    const { PGlite } = await import('@electric-sql/pglite');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    globalThis.keep = await PGlite.create(process.env.PROBE_DIR, { extensions: { pg_trgm } });`,
  migrated: `
    const { openConfiguredDatabase } = await import('./dist/src/db/open-configured.js');
    globalThis.keep = await openConfiguredDatabase({ dataDir: process.env.PROBE_DIR, dbPoolSize: 1 });`,
} as const;

function toRow(name: string, r: Record<string, number>): Row {
  return {
    name,
    rssMb: mb(r.rss),
    rssAfterGcMb: mb(r.rssAfterGc),
    hwmMb: mb(r.hwm),
    heapUsedMb: mb(r.heapUsed),
    externalMb: mb(r.external),
    wasmMb: mb(r.wasm),
  };
}

/** Runs one probe in a fresh `node --expose-gc` and returns what it reported after idling. */
async function runProbe(name: string, code: string, env: Record<string, string>, cleanup: Cleanup): Promise<Row> {
  const script = `${REPORTER}\n${code}\nawait new Promise((r) => setTimeout(r, ${IDLE_MS}));\nconsole.log('REPORT ' + JSON.stringify(await globalThis.__memoryReport(globalThis.gc)));\nprocess.exit(0);`;
  const proc = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.add(`probe ${name}`, async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  proc.stderr.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  const code_ = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  const line = /^REPORT (.*)$/m.exec(out)?.[1];
  if (code_ !== 0 || !line) throw new Error(`probe ${name} failed (exit ${code_}):\n${out.slice(-2000)}`);
  return toRow(name, JSON.parse(line));
}

/** Runs the built server as `npm start` does, on `dataDir`; hands it to `during` once ready. */
async function withServer(
  dataDir: string,
  cleanup: Cleanup,
  during: (server: { baseUrl: string; output(): string; report(name: string): Promise<Row> }) => Promise<void>,
): Promise<void> {
  const port = await freePort();
  const reportFile = join(dataDir, '..', `report-${port}.json`);
  const child = await startChild({
    name: 'server',
    args: ['--import', `data:text/javascript,${encodeURIComponent(SERVER_PRELOAD)}`, 'dist/src/server.js'],
    env: { PORT: String(port), DATA_DIR: dataDir, MEMORY_IDLE_REPORT: reportFile },
    port,
    readyPath: '/readyz',
  });
  cleanup.add('server', () => child.stop());
  const report = async (name: string): Promise<Row> => {
    rmSync(reportFile, { force: true });
    process.kill(child.pid, 'SIGUSR2');
    for (let i = 0; i < 100 && !existsSync(reportFile); i++) await sleep(100);
    await sleep(100);
    const r = JSON.parse(readFileSync(reportFile, 'utf8'));
    // The server's own /proc numbers, read from outside, as a cross-check of the preload's.
    const outside = readMemoryKb(child.pid);
    if (outside) r.hwm = Math.max(r.hwm, outside.hwm * 1024);
    return toRow(name, r);
  };
  try {
    await during({ baseUrl: child.baseUrl, output: child.output, report });
  } finally {
    await child.stop();
  }
}

async function demoCredentials(output: () => string): Promise<{ key: string; org: string }> {
  for (let i = 0; i < 100; i++) {
    const key = /API key:\s+(\S+)/.exec(output())?.[1];
    const org = /organization:\s+(\S+)/.exec(output())?.[1];
    if (key && org) return { key, org };
    await sleep(100);
  }
  throw new Error(`the server printed no demo key:\n${output()}`);
}

async function listRequests(baseUrl: string, auth: { key: string; org: string }, n: number): Promise<void> {
  const headers = { authorization: `Bearer ${auth.key}`, 'x-organization-id': auth.org };
  const paths = [
    '/public/v1/teardowns',
    '/public/v1/sales-lease-exchange',
    '/public/v1/sales-lease-exchange?search=engine',
    '/public/v1/teardowns?limit=100',
  ];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${baseUrl}${paths[i % paths.length]}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${paths[i % paths.length]} answered ${res.status}`);
  }
}

function printTable(rows: Row[]): void {
  const head = ['measurement (fresh process each)', 'RSS', 'RSS gc', 'VmHWM', 'heap', 'external', 'wasm'];
  const lines = rows.map((r) => [r.name, r.rssMb, r.rssAfterGcMb, r.hwmMb, r.heapUsedMb, r.externalMb, r.wasmMb].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(fmt(head));
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const l of lines) console.log(fmt(l));
  console.log('(MB; RSS and VmHWM from /proc/<pid>/status; heap = V8 heapUsed; wasm = WebAssembly.Memory buffers)');
}

async function main(): Promise<void> {
  if (!existsSync(join(projectRoot, 'dist/src/server.js'))) {
    throw new Error('dist/src/server.js is missing: run `npm run build` first (this bench builds nothing).');
  }
  const cleanup = new Cleanup((line) => console.error(line));
  const root = mkdtempSync(join(tmpdir(), 'memory-idle-'));
  cleanup.add('temporary directories', async () => rmSync(root, { recursive: true, force: true }));
  cleanup.add('children', () => stopAllChildren());
  const interrupted = () => {
    killAllChildrenNow();
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  process.once('exit', killAllChildrenNow);

  const rows: Row[] = [];
  const step = async (name: string, run: () => Promise<Row | Row[]>) => {
    console.error(`measuring: ${name}`);
    const r = await run();
    rows.push(...(Array.isArray(r) ? r : [r]));
  };
  let n = 0;
  const freshDir = () => join(root, `d${++n}`);
  try {
    await step('bare node', () => runProbe('bare node', probes.bare, {}, cleanup));
    await step('imports', () => runProbe('node + app imports, no database', probes.imports, {}, cleanup));
    await step('pglite', async () => {
      const dir = freshDir();
      const fresh = await runProbe('PGlite.create + pg_trgm, empty dir (initdb)', probes.pgliteCreate, { PROBE_DIR: dir }, cleanup);
      const again = await runProbe('PGlite.create + pg_trgm, existing dir', probes.pgliteCreate, { PROBE_DIR: dir }, cleanup);
      return [fresh, again];
    });
    await step('migrated', async () => {
      const dir = freshDir();
      const fresh = await runProbe('PGlite + migrations, empty dir', probes.migrated, { PROBE_DIR: dir }, cleanup);
      const again = await runProbe('PGlite + migrations, existing dir', probes.migrated, { PROBE_DIR: dir }, cleanup);
      return [fresh, again];
    });
    const serverDir = freshDir();
    await step('server', async () => {
      const out: Row[] = [];
      await withServer(serverDir, cleanup, async (server) => {
        const auth = await demoCredentials(server.output);
        await sleep(IDLE_MS);
        out.push(await server.report('server, first start, idle'));
        await listRequests(server.baseUrl, auth, LOAD_REQUESTS);
        out.push(await server.report(`server, right after ${LOAD_REQUESTS} list requests`));
        await sleep(IDLE_MS);
        out.push(await server.report('server, settled after the requests'));
      });
      await withServer(serverDir, cleanup, async (server) => {
        await sleep(IDLE_MS);
        out.push(await server.report('server, restart on that dir, idle'));
      });
      return out;
    });
  } finally {
    await cleanup.runAll();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
  printTable(rows);
}

main().catch((err) => {
  console.error(`memory-idle failed: ${errorText(err)}`);
  process.exitCode = 1;
});
