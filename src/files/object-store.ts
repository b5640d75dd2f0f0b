// Where uploaded files live. Two real implementations: the local filesystem (default) and S3.
import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  size: number;
}

export interface ObjectStore {
  /** Streams `body` to `key` (relative to the media root). Rejects with StorageError when the store fails. */
  put(key: string, body: Readable, contentType: string, contentDisposition?: string): Promise<StoredObject>;
  /** Deletes `key`; a missing object is not an error. An aborted `signal` gives up (and rejects). */
  delete(key: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** Checks the store is reachable (readiness), giving up after `timeoutMs`. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The store upstream failed (network, permissions, disk); the caller answers 502 storage_unavailable. */
export class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
  }
}
