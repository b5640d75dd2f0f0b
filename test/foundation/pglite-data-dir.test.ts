// The embedded PGlite on a directory: created by initdb in a child process on the first open, reopened
// as it is afterwards, and started with the service's shared_buffers (src/db/pglite-settings.ts).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openConfiguredDatabase } from '../../src/db/open-configured.js';
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from '../../src/db/pglite-settings.js';
import { backend } from '../helpers/app.js';

const dataDir = mkdtempSync(join(tmpdir(), 'partner-api-pglite-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const setting = async (db: Awaited<ReturnType<typeof openConfiguredDatabase>>['db'], name: string) =>
  (await sql<{ setting: string }>`SELECT current_setting(${name}) AS setting`.execute(db)).rows[0].setting;

describe.skipIf(backend() !== 'pglite')('embedded PGlite data directory', () => {
  it('creates the database on the first open, keeps it on the next, with the configured shared_buffers', async () => {
    const first = await openConfiguredDatabase({ dataDir, dbPoolSize: 1 });
    try {
      expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
      expect(await setting(first.db, 'shared_buffers')).toBe(`${DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB`);
      await sql`CREATE TABLE kept (v text)`.execute(first.db);
      await sql`INSERT INTO kept VALUES ('still here')`.execute(first.db);
    } finally {
      await first.close();
    }

    const again = await openConfiguredDatabase({ dataDir, dbPoolSize: 1, pgliteSharedBuffersMb: 16 });
    try {
      expect(await setting(again.db, 'shared_buffers')).toBe('16MB');
      expect((await sql<{ v: string }>`SELECT v FROM kept`.execute(again.db)).rows).toEqual([{ v: 'still here' }]);
      // pg_trgm still loads: the search indexes depend on it.
      expect(await setting(again.db, 'search_path')).toBe('public');
      await sql`SELECT similarity('engine', 'engines')`.execute(again.db);
    } finally {
      await again.close();
    }
  }, 120_000);
});
