// A statement's answers reuse its row template (src/db/row-shapes.ts): built once per statement
// text, rebuilt whenever the columns received differ from the ones it was built from, and the rows
// themselves are those pg builds.
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { MAX_ROW_SHAPES, rowShapesSupported } from '../../src/db/row-shapes.js';
import { backend, createPostgresDatabase } from '../helpers/app.js';

// biome-ignore lint/suspicious/noExplicitAny: a scratch table outside the service's schema
type Any = Kysely<any>;

describe('row templates of statement answers', () => {
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let handle: DatabaseHandle;
  let db: Any;
  // pg's own template builder, which a kept template stands in for.
  const built = vi.spyOn((pg.Result as unknown as { prototype: { addFields(fields: unknown[]): void } }).prototype, 'addFields');

  beforeAll(async () => {
    if (backend() === 'postgres') database = await createPostgresDatabase();
    // Several connections on PostgreSQL: each keeps the templates built with its own type parsers.
    handle = await openDatabase(database ? { url: database.url, poolSize: 3 } : { pgliteDataDir: 'memory://' });
    db = handle.db as unknown as Any;
    await sql`CREATE TABLE engines (id int PRIMARY KEY, model text, installed_at timestamptz, hours int)`.execute(db);
    await sql`INSERT INTO engines VALUES (1, 'CFM56-5B', '2026-03-01T10:00:00.123456Z', 41000), (2, 'V2500', NULL, 12)`.execute(db);
  });
  afterAll(async () => {
    built.mockRestore();
    await handle?.close();
    await database?.drop();
  });

  const read = (id: number) => db.selectFrom('engines').selectAll().where('id', '=', id).execute();

  it('is supported by the installed pg (an upgrade that drops the members it relies on fails here)', () => {
    expect(rowShapesSupported).toBe(true);
  });

  it('builds the template of a statement once, and answers later executions with it', async () => {
    expect(await read(1)).toEqual([{ id: 1, model: 'CFM56-5B', installed_at: new Date('2026-03-01T10:00:00.123Z'), hours: 41000 }]);
    built.mockClear();
    expect(await read(2)).toEqual([{ id: 2, model: 'V2500', installed_at: null, hours: 12 }]);
    expect(await read(1)).toHaveLength(1);
    expect(built).not.toHaveBeenCalled();
  });

  it('keeps the template on every connection of the pool: statements at once build nothing after the first', async () => {
    const atOnce = () => Promise.all([read(1), read(2), read(1), read(2), read(1), read(2)]);
    await atOnce();
    await atOnce();
    built.mockClear();
    for (let i = 0; i < 3; i++) expect((await atOnce()).map((rows) => rows[0].id)).toEqual([1, 2, 1, 2, 1, 2]);
    expect(built).not.toHaveBeenCalled();
  });

  it("builds a statement's rows with its own builder, not pg's parseRow (megamorphic stores by column name)", async () => {
    const parsed = vi.spyOn((pg.Result as unknown as { prototype: { parseRow(values: unknown[]): unknown } }).prototype, 'parseRow');
    try {
      await read(1);
      parsed.mockClear();
      expect(await read(1)).toEqual([{ id: 1, model: 'CFM56-5B', installed_at: new Date('2026-03-01T10:00:00.123Z'), hours: 41000 }]);
      expect(await read(2)).toEqual([{ id: 2, model: 'V2500', installed_at: null, hours: 12 }]);
      expect(parsed).not.toHaveBeenCalled();
    } finally {
      parsed.mockRestore();
    }
  });

  it('gives each answer a row object of its own', async () => {
    const [first] = await read(1);
    first.model = 'changed by the caller';
    expect((await read(1))[0].model).toBe('CFM56-5B');
  });

  it('rebuilds the template when the same text answers other columns (a migration between two executions)', async () => {
    expect(Object.keys((await read(2))[0])).toEqual(['id', 'model', 'installed_at', 'hours']);
    await sql`ALTER TABLE engines ADD COLUMN cycles int DEFAULT 7`.execute(db);
    built.mockClear();
    expect(await read(2)).toEqual([{ id: 2, model: 'V2500', installed_at: null, hours: 12, cycles: 7 }]);
    expect(built).toHaveBeenCalled();
  });

  it('rebuilds the template when a column keeps its name but changes type', async () => {
    const hours = () => db.selectFrom('engines').select('hours').where('id', '=', 1).execute();
    expect(await hours()).toEqual([{ hours: 41000 }]);
    await sql`ALTER TABLE engines ALTER COLUMN hours TYPE text`.execute(db);
    expect(await hours()).toEqual([{ hours: '41000' }]);
  });

  it(`keeps at most ${MAX_ROW_SHAPES} templates a connection: a new text pushes out the oldest`, async () => {
    // One connection, so that every statement below meets the same templates.
    const single = database ? await openDatabase({ url: database.url, poolSize: 1 }) : handle;
    try {
      const on = single.db as unknown as Any;
      const numbered = (k: number) => sql<{ n: number }>`SELECT ${k}::int AS ${sql.ref(`n${k}`)}`.execute(on);
      for (let k = 0; k <= MAX_ROW_SHAPES; k++) await numbered(k);
      built.mockClear();
      await numbered(MAX_ROW_SHAPES);
      expect(built).not.toHaveBeenCalled();
      await numbered(0);
      expect(built).toHaveBeenCalledTimes(1);
    } finally {
      if (single !== handle) await single.close();
    }
  });

  it('builds rows as pg does for odd column names (duplicates, __proto__)', async () => {
    const odd = () => sql<Record<string, unknown>>`SELECT ${1}::int AS "__proto__", 2 AS a, 3 AS a`.execute(db);
    for (let i = 0; i < 2; i++) {
      const [row] = (await odd()).rows;
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
      expect(row.a).toBe(3);
    }
  });

  it('builds rows as pg does for duplicate names: the first position, the last value', async () => {
    const twice = () => sql<Record<string, unknown>>`SELECT ${1}::int AS a, 2 AS b, 3 AS a`.execute(db);
    for (let i = 0; i < 2; i++) {
      const [row] = (await twice()).rows;
      expect(Object.keys(row)).toEqual(['a', 'b']);
      expect(row).toEqual({ a: 3, b: 2 });
    }
  });

  it('reads any column name as a name: quotes, backslashes, line breaks and code stay text', async () => {
    const name = `x" : 1 }; globalThis.injected = true; ({ "\\\n\u2028`;
    const odd = () => sql<Record<string, unknown>>`SELECT ${7}::int AS ${sql.id(name)}, NULL::int AS "then null"`.execute(db);
    for (let i = 0; i < 2; i++) {
      const [row] = (await odd()).rows;
      expect(row).toEqual({ [name]: 7, 'then null': null });
      expect(Object.keys(row)).toEqual([name, 'then null']);
    }
    expect((globalThis as { injected?: boolean }).injected).toBeUndefined();
  });
});
