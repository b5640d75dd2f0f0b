// Named prepared statements on PostgreSQL (src/db/database.ts): bounded, never a generic plan for a
// search pattern, never stale after a schema change, and off when DB_PREPARED_STATEMENTS=false.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, MAX_PREPARED, openDatabase } from '../../src/db/database.js';
import { backend, createPostgresDatabase } from '../helpers/app.js';

// biome-ignore lint/suspicious/noExplicitAny: a scratch table outside the service's schema
type Any = Kysely<any>;

describe.skipIf(backend() !== 'postgres')('named prepared statements', () => {
  let database: { url: string; drop: () => Promise<void> };
  let handle: DatabaseHandle;
  let db: Any;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    // One connection: what one statement left prepared is visible to the next.
    handle = await openDatabase({ url: database.url, poolSize: 1 });
    db = handle.db as unknown as Any;
    await sql`CREATE TABLE gauges (id int PRIMARY KEY, label text)`.execute(db);
    await sql`INSERT INTO gauges VALUES (1, 'Main gear'), (2, 'Nose gear')`.execute(db);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  const prepared = async (on: Any = db) =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(on)).rows.map((r) => r.statement);

  it('prepares a parameterised statement once and reuses it', async () => {
    for (let i = 0; i < 3; i++)
      expect(await db.selectFrom('gauges').select('label').where('id', '=', 1).execute()).toEqual([{ label: 'Main gear' }]);
    const texts = await prepared();
    expect(texts.filter((t) => t.includes('from "gauges" where "id" = $1'))).toHaveLength(1);
  });

  it('never prepares a search pattern (each pattern gets its own plan)', async () => {
    expect(await db.selectFrom('gauges').select('id').where('label', 'ilike', '%nose%').execute()).toEqual([{ id: 2 }]);
    expect((await prepared()).some((t) => /ilike/i.test(t))).toBe(false);
  });

  it('answers the new shape after a migration changes a prepared SELECT *, outside a transaction', async () => {
    const read = () => db.selectFrom('gauges').selectAll().where('id', '=', 2).execute();
    expect(await read()).toEqual([{ id: 2, label: 'Nose gear' }]);
    await sql`ALTER TABLE gauges ADD COLUMN cycles int DEFAULT 7`.execute(db);
    expect(await read()).toEqual([{ id: 2, label: 'Nose gear', cycles: 7 }]);
  });

  it('inside a transaction the stale statement fails once, and the next transaction prepares it anew', async () => {
    const read = (on: Any) => on.selectFrom('gauges').selectAll().where('id', '=', 1).execute();
    expect(await read(db)).toHaveLength(1);
    await sql`ALTER TABLE gauges ADD COLUMN hours int DEFAULT 3`.execute(db);
    await expect(db.transaction().execute((tx) => read(tx))).rejects.toThrow(/cached plan must not change result type/);
    expect(await db.transaction().execute((tx) => read(tx))).toEqual([{ id: 1, label: 'Main gear', cycles: 7, hours: 3 }]);
  });

  it(`names at most ${MAX_PREPARED} distinct statements; the rest run unnamed`, async () => {
    for (let k = 0; k < MAX_PREPARED + 50; k++) {
      const { rows } = await sql<{ n: number }>`SELECT ${k}::int + ${sql.raw(String(k))} AS n`.execute(db);
      expect(rows[0].n).toBe(2 * k);
    }
    expect((await prepared()).length).toBeLessThanOrEqual(MAX_PREPARED + 2);
  });

  it('DB_PREPARED_STATEMENTS=false sends everything unnamed', async () => {
    const plain = await openDatabase({ url: database.url, poolSize: 1, preparedStatements: false });
    try {
      const on = plain.db as unknown as Any;
      for (let i = 0; i < 3; i++) await on.selectFrom('gauges').select('label').where('id', '=', 1).execute();
      expect(await prepared(on)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
