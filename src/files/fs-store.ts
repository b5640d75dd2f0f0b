// The default object store: files under DATA_DIR/storage/<media_bucket>/..., served by the service.

import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type ObjectStore, StorageError } from './object-store.js';

export function fsObjectStore(root: string, mediaBucket: string): ObjectStore & { pathOf(key: string): string | undefined; root: string } {
  const base = resolve(root, mediaBucket);

  /** The absolute path of a key, or undefined when the key would leave the media root. */
  function pathOf(key: string): string | undefined {
    if (key.includes('\0')) return undefined;
    const full = resolve(base, key);
    return full.startsWith(base + sep) ? full : undefined;
  }

  return {
    root: base,
    pathOf,
    async put(key, body) {
      const target = pathOf(key);
      if (!target) throw new StorageError(`refusing key outside the media root: ${key}`);
      // Written beside the target and renamed into place: a reader never sees half a file.
      const partial = `${target}.${randomUUID()}.partial`;
      try {
        await mkdir(dirname(target), { recursive: true });
        const file = createWriteStream(partial, { flags: 'wx' });
        await pipeline(body, file);
        await rename(partial, target);
        // What was written, counted by the stream: no stat() after the rename (one file-system call fewer).
        return { key, size: file.bytesWritten };
      } catch (err) {
        await rm(partial, { force: true }).catch(() => {});
        if ((err as NodeJS.ErrnoException)?.code && !(err instanceof StorageError)) {
          // Filesystem failures are storage outages for the caller; stream errors from the body pass through.
          const code = (err as NodeJS.ErrnoException).code ?? '';
          if (/^E[A-Z]+$/.test(code) && !['ECONNRESET', 'EPIPE'].includes(code))
            throw new StorageError(`filesystem store failed: ${code}`, { cause: err });
        }
        throw err;
      }
    },
    async delete(key) {
      const target = pathOf(key);
      if (!target) return;
      await unlink(target).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw new StorageError(`could not delete ${key}: ${err.code}`, { cause: err });
      });
    },
    async ping() {
      await mkdir(base, { recursive: true });
    },
    async close() {},
  };
}

export type LocalObjectStore = ReturnType<typeof fsObjectStore>;

/** Whether `store` keeps files on this machine, which the service then serves under /storage. */
export const isLocalStore = (store: ObjectStore): store is LocalObjectStore =>
  typeof (store as Partial<LocalObjectStore>).pathOf === 'function';
