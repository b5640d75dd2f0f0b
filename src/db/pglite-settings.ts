// PostgreSQL settings of the embedded PGlite (the default without DATABASE_URL).
//
// PGlite runs PostgreSQL in a WebAssembly heap inside the service's process. That heap starts at
// 128 MB (the floor the WASM module declares) and only grows: memory PostgreSQL touched once stays
// resident until the process ends. The largest part is shared_buffers, which initdb sets to 128 MB:
// with it the heap grows to ~190 MB. At 32 MB the heap stays at its 128 MB floor and the idle
// process holds ~80 MB less (bench/README.md, "Memory of the embedded default"). Pages that miss
// shared_buffers are read through the host's file system, whose page cache serves them: lists of a
// 100k-row table were no slower within the noise of the measurement; 16 MB was slower at search.
import { PGlite } from '@electric-sql/pglite';

/** shared_buffers of the embedded PGlite, in MB, unless PGLITE_SHARED_BUFFERS_MB says otherwise. */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 32;

/** PGlite's own start parameters, plus the settings above (given as `-c` options: postgresql.conf is left as initdb wrote it). */
export function pgliteStartParams(sharedBuffersMb = DEFAULT_PGLITE_SHARED_BUFFERS_MB): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`];
}
