// Builds dist/ only when it is stale, so `npm start`, `npm run admin` and `npm run demo` run compiled
// JavaScript without paying for the TypeScript compiler on every start (~7.5 s here).
//
// Stale means: dist/ has no stamp, or the stamp's hash differs from a SHA-256 over the build's
// inputs (every file under src/, both tsconfig files, and package-lock.json, which pins the compiler).
// Hashing contents rather than comparing mtimes survives `git checkout` and copies, and costs a few
// milliseconds. The build goes to a fresh folder renamed into place, so a deleted source file never
// lingers in dist/ and a reader never sees half a build.
//
// A deployment that ships dist/ without src/ (build in CI, `npm ci --omit=dev`, copy dist/) has
// nothing to compare: the shipped dist/ is used as it is.
//
//   node scripts/ensure-build.mjs           build if stale (quiet when fresh)
//   node scripts/ensure-build.mjs --check   exit 0 when fresh, 1 when stale; never builds
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const STAMP = '.build-stamp';
const ENTRY = join('src', 'server.js');
const LOCK = join(ROOT, 'dist.lock');

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

function compilerVersion() {
  try {
    return createRequire(join(ROOT, 'package.json'))('typescript/package.json').version;
  } catch {
    return undefined; // not installed: a production install (--omit=dev)
  }
}

/** The hash of everything the build reads, or undefined when the sources are not here. */
export function inputsHash(root = ROOT) {
  if (!existsSync(join(root, 'src'))) return undefined;
  const files = [
    ...filesUnder(join(root, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => join(root, f)),
  ]
    .filter((f) => existsSync(f))
    .map((f) => relative(root, f).split('\\').join('/'))
    .sort();
  // Not the installed compiler's version: a pruned production install (no TypeScript) keeps the same hash.
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\n`)
      .update(readFileSync(join(root, file)))
      .update('\n');
  return hash.digest('hex');
}

export function isFresh(root = ROOT, expected = inputsHash(root)) {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, ENTRY))) return false;
  if (expected === undefined) return true; // shipped dist/ without sources
  const stamp = join(dist, STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === expected;
}

class BuildError extends Error {
  constructor(message, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

function build(hash) {
  const tscVersion = compilerVersion();
  if (!tscVersion) {
    throw new BuildError(
      'dist/ is missing or older than src/, and TypeScript is not installed (a production install?).\n' +
        'Run `npm install` (with dev dependencies) here, or build with `npm run build` in CI and ship dist/.',
    );
  }
  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  const temp = join(ROOT, `dist.building-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  process.stderr.write('Building dist/ (sources changed since the last build)...\n');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', temp], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) {
    rmSync(temp, { recursive: true, force: true });
    throw new BuildError('Build failed.', run.status ?? 1);
  }
  writeFileSync(join(temp, STAMP), `${hash}\n`);
  // Swap: the old dist/ moves aside first (a directory cannot be renamed over a non-empty one).
  const old = join(ROOT, `dist.old-${process.pid}`);
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(temp, DIST);
  rmSync(old, { recursive: true, force: true });
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/**
 * One builder at a time (two `npm start`s, or test files on two backends, may find dist/ stale at
 * once): the lock file holds the builder's pid; a lock whose process is gone is taken over.
 */
function withBuildLock(fn) {
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let abandoned;
      try {
        const holder = Number(readFileSync(LOCK, 'utf8').trim());
        // An empty lock is a holder between open and write, unless it has stayed empty for a while.
        abandoned = holder ? !alive(holder) : Date.now() - statSync(LOCK).mtimeMs > 10_000;
      } catch {
        continue; // released meanwhile: try again
      }
      if (abandoned) rmSync(LOCK, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const hash = inputsHash();
  const fresh = isFresh(ROOT, hash);
  if (process.argv.includes('--check')) {
    console.log(fresh ? 'dist/ is up to date' : 'dist/ is stale');
    process.exit(fresh ? 0 : 1);
  }
  // Checked again under the lock: another process may have just built the same sources.
  try {
    if (!fresh) withBuildLock(() => isFresh(ROOT, hash) || build(hash));
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    console.error(err.message);
    process.exit(err.exitCode);
  }
}
