// `npm run bench`: build the service, then for each backend (PostgreSQL, then PGlite) seed, measure
// floors and scenarios, and write bench/RESULTS.md and bench/EXPLAIN.md. Everything it starts it
// stops, and everything it creates it removes, also on failure, on Ctrl-C and at the time limit.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendResult, runBackend } from './backend-run.js';
import { Cleanup, errorText } from './cleanup.js';
import { benchLog, runInfo, runToCompletion } from './lifecycle.js';
import { type Backend, projectRoot, readOptions } from './options.js';
import { stopAllChildren } from './processes.js';
import { renderExplain, renderResults } from './report.js';

const log = benchLog('bench');
const options = readOptions();
const cleanup = new Cleanup(log);

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

  const info = await runInfo('bench', options.postgresUrl);
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

runToCompletion(main, { log, cleanup, timeoutMinutes: options.timeoutMinutes });
