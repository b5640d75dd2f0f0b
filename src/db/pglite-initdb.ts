// Creating a fresh PGlite data directory (initdb) in a short-lived child process.
//
// On an empty directory PGlite.create runs initdb in process: a second PostgreSQL WASM instance plus
// initdb's own next to the one that will serve. Their memory is freed when they close, but the process
// peaks at ~800 MB and keeps 70 MB or more resident for its whole life than a start on an existing
// directory (bench/README.md, "Memory of the embedded default"). In a child process that memory goes
// back to the system when the child exits, and the service then opens the directory as on any later start.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The child: PGlite.create on the directory (initdb), then close. Arguments: the directory, the start parameters as JSON. */
const INITDB_SCRIPT = `
const { PGlite } = require(process.argv[1]);
PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) })
  .then((db) => db.close())
  .catch((err) => { console.error(err && err.stack ? err.stack : String(err)); process.exit(1); });
`;

const INITDB_DEADLINE_MS = 120_000;

/** Runs initdb on `dataDir` in a child process, unless the directory already holds a database. */
export async function initPgliteDataDir(dataDir: string, startParams: string[]): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const child = spawn(process.execPath, ['-e', INITDB_SCRIPT, pglite, dataDir, JSON.stringify(startParams)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  // initdb takes a few seconds; one that hangs must not hold the start forever.
  const deadline = setTimeout(() => child.kill('SIGKILL'), INITDB_DEADLINE_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, s) => resolve([c, s]));
  }).finally(() => clearTimeout(deadline));
  if (code !== 0) {
    const why = signal === 'SIGKILL' ? `no answer within ${INITDB_DEADLINE_MS / 1000} s` : (signal ?? `exit ${code}`);
    throw new Error(`Creating the PGlite database in ${dataDir} failed (${why}): ${stderr.trim()}`);
  }
}
