// Embedded PGlite has no lock of its own: two processes opening one data directory both
// succeed and then corrupt it. This lock file makes the second one fail with a clear message.
// The holder refreshes the file's mtime; a lock whose holder is gone (dead process, recreated
// container, reused pid) goes stale and is taken over, so a crash never blocks the next start.
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

const HEARTBEAT_MS = 5_000;
const STALE_MS = 20_000;
const heldHere = new Set<string>();

export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${resolve(lockFile, '..')} is in use by process ${pid}. ` +
        'Embedded PGlite allows one process at a time: stop the server first, or use the admin API ' +
        '(/admin/v1 with ADMIN_TOKEN) while it runs, or set DATABASE_URL to use PostgreSQL.',
    );
    this.name = 'DataDirLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the lock at `lockFile` still belongs to a running process other than this one. */
function heldElsewhere(lockFile: string): { pid: number } | undefined {
  let holder: { pid: number; host: string };
  let age: number;
  try {
    const parsed = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof parsed.pid !== 'number') return undefined; // half-written or foreign: stale
    holder = { pid: parsed.pid, host: String(parsed.host ?? '') };
    age = Date.now() - statSync(lockFile).mtimeMs;
  } catch {
    return undefined;
  }
  if (age > STALE_MS) return undefined;
  if (holder.host === hostname() && (holder.pid === process.pid || !alive(holder.pid))) return undefined;
  return { pid: holder.pid };
}

/** Takes `<dataDir>/pglite.lock` for this process, or throws DataDirLockedError; the answer releases it. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = resolve(join(dataDir, 'pglite.lock'));
  if (heldHere.has(lockFile)) throw new DataDirLockedError(lockFile, process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const holder = heldElsewhere(lockFile);
      if (holder) throw new DataDirLockedError(lockFile, holder.pid);
      unlinkSync(lockFile);
    }
  }
  heldHere.add(lockFile);
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(lockFile, now, now);
    } catch {
      // Removed under us: the next start takes a fresh lock.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const release = () => {
    if (!heldHere.delete(lockFile)) return;
    clearInterval(heartbeat);
    process.off('exit', release);
    try {
      unlinkSync(lockFile);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);
  return release;
}
