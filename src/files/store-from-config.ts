// The object store the configuration names: an S3 bucket when S3_BUCKET is set, else files under
// DATA_DIR/storage. The server and the admin CLI (run-jobs sweeps files) open it the same way.
import { join } from 'node:path';
import type { Config } from '../config.js';
import { fsObjectStore } from './fs-store.js';
import type { ObjectStore } from './object-store.js';

export async function createObjectStore(config: Config): Promise<ObjectStore> {
  if (config.storage.s3) {
    const { s3ObjectStore } = await import('./s3-store.js');
    return s3ObjectStore(config.storage.s3, config.storage.mediaBucket);
  }
  return fsObjectStore(join(config.dataDir, 'storage'), config.storage.mediaBucket);
}
