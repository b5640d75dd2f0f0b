// `npm run bench`: build the service, then for each backend (PostgreSQL, then PGlite) seed, measure
// floors and scenarios, and write bench/RESULTS.md and bench/EXPLAIN.md. Everything it starts it
// stops, and everything it creates it removes, also on failure, on Ctrl-C and at the time limit.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { type BackendResult, runBackend } from './backend-run.js';
import { Cleanup, errorText } from './cleanup.js';
import { postgresVersion } from './databases.js';
import { type Backend, projectRoot, readOptions } from './options.js';
import { killAllChildrenNow, stopAllChildren } from './processes.js';
import { type RunInfo, renderExplain, renderResults } from './report.js';

const started = performance.now();
const minutes = () => (performance.now() - started) / 60_000;
const log = (line: string) => console.log(`[bench ${minutes().toFixed(1).padStart(4)} min] ${line}`);

const options = readOptions();
const cleanup = new Cleanup(log);

async function shutdown(reason: string, code: number): Promise<never> {
  log(`${reason}: stopping and cleaning up`);
  await stopAllChildren();
  await cleanup.runAll();
  process.exit(code);
}

process.on('exit', killAllChildrenNow);
process.once('SIGINT', () => void shutdown('interrupted', 130));
process.once('SIGTERM', () => void shutdown('terminated', 143));
const deadline = setTimeout(
  () => void shutdown(`time limit of ${options.timeoutMinutes} min reached`, 124),
  options.timeoutMinutes * 60_000,
);

function cpuModel(): string {
  const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
  return match?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
}

function command(): string {
  const env = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v}`);
  return [...env, 'npm run bench'].join(' ');
}

async function main() {
  log(
    `${options.quick ? 'QUICK mode' : 'full run'}: ${options.backends.join(' then ')}, ${options.connections} connections, ${options.warmupSeconds}+${options.durationSeconds} s per scenario`,
  );
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: projectRoot, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');

  const tmpRoot = await mkdtemp(join(tmpdir(), 'partner-api-bench-'));
  // Retries: an interrupted copy may still be writing into the tree when the removal starts.
  cleanup.add(`remove ${tmpRoot}`, () => rm(tmpRoot, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 }));

  const results: BackendResult[] = [];
  const failures: { backend: Backend; error: string }[] = [];
  for (const backend of options.backends) {
    log(`=== ${backend} ===`);
    try {
      results.push(await runBackend(backend, options, tmpRoot, cleanup, (line) => log(`[${backend}] ${line}`)));
    } catch (err) {
      failures.push({ backend, error: errorText(err) });
      log(`[${backend}] failed: ${errorText(err)}`);
      await stopAllChildren();
    }
  }

  const info: RunInfo = {
    date: `${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    cores: cpus().length,
    cpuModel: cpuModel(),
    memoryGb: totalmem() / 1024 ** 3,
    kernel: release(),
    node: process.version,
    postgres: await postgresVersion(options.postgresUrl).catch(() => 'unavailable'),
    command: command(),
    minutes: minutes(),
  };
  const written = [options.resultsPath];
  await writeFile(options.resultsPath, renderResults(info, options, results, failures));
  if (options.explainPath && results.some((r) => r.explain.length > 0)) {
    await writeFile(options.explainPath, renderExplain(info, results));
    written.push(options.explainPath);
  }
  // The repository's formatter lays the tables out (and `npm run lint` covers bench/); best effort.
  spawnSync(join(projectRoot, 'node_modules/.bin/biome'), ['format', '--write', ...written], { cwd: projectRoot, stdio: 'ignore' });
  log(`wrote ${written.join(' and ')}`);
  return failures.length === 0 && results.every((r) => !r.error) ? 0 : 1;
}

main()
  .then(async (code) => {
    clearTimeout(deadline);
    await stopAllChildren();
    await cleanup.runAll();
    process.exit(code);
  })
  .catch(async (err) => {
    clearTimeout(deadline);
    console.error(err);
    await shutdown('failed', 1);
  });
