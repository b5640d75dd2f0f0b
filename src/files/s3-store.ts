// S3-compatible object store. Filled in by the files feature.
import type { Config } from '../config.js';
import type { ObjectStore } from './object-store.js';

export function s3ObjectStore(_s3: NonNullable<Config['storage']['s3']>, _mediaBucket: string): ObjectStore {
  throw new Error('S3 store not implemented yet');
}
