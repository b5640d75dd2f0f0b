// Statements compiled once per shape (src/db/compiled.ts): each call must send exactly the SQL and
// the parameters the builder compiles for the same values, whatever the shape.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { statementCache } from '../../src/db/compiled.js';
import type { DB } from '../../src/db/schema.js';
import { type ListFilters, type SortColumn, teardownRepository } from '../../src/teardowns/repository.js';

const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const repo = teardownRepository(db);
const ORG = '0b7e3f0e-8a51-4c1d-9a43-6f1c2b8f0a11';

const asSent = (q: { sql: string; parameters: readonly unknown[] }) => ({ sql: q.sql, parameters: [...q.parameters] });

describe('statements compiled once per shape', () => {
  const filterSets: ListFilters[] = [
    {},
    { statuses: ['active_starting'] },
    { statuses: ['active_starting', 'draft', 'archived'] },
    { statuses: [] },
    { assetType: 'engine', countryPattern: '%fr%' },
    { searchPattern: '%cfm\\_56%', updatedSince: new Date('2026-01-02T03:04:05Z') },
    { aircraftTypeId: '5d3c1b8e-1111-4c1d-9a43-6f1c2b8f0a11', engineModelId: undefined, statuses: ['draft'], searchPattern: '%x%' },
    { assetType: undefined, countryPattern: '' },
    // An array sent as one parameter (`id = ANY($n)`): no template can bind it.
    {
      searchPattern: '%esn 5001%',
      searchCandidatePattern: '%5001%',
      candidateIds: ['5d3c1b8e-1111-4c1d-9a43-6f1c2b8f0a11', '6e4d2c9f-2222-4d2e-8b54-7a2d3c9a1b22'],
    },
  ];
  const count = statementCache((k: Kysely<DB>, v: ListFilters & { orgId: string }) => {
    const { orgId, ...filters } = v;
    return teardownRepository(k).countQuery(orgId, filters);
  });
  const page = statementCache(
    (
      k: Kysely<DB>,
      { orgId, limit, offset, ...filters }: ListFilters & { orgId: string; limit: number; offset: number },
      [sortColumn, direction]: [SortColumn, 'asc' | 'desc'],
    ) => teardownRepository(k).pageQuery(orgId, filters, { sortColumn, direction, limit, offset }),
  );

  it('sends what the builder compiles, for every filter shape, on first use and from the cache', () => {
    for (let round = 0; round < 2; round++) {
      for (const filters of filterSets) {
        // Other values of the same shape, so that a cached template must bind the new ones.
        const orgId = round === 0 ? ORG : ORG.replace('0b7e', '1c8f');
        expect(asSent(count(db, { ...filters, orgId }))).toEqual(asSent(repo.countQuery(orgId, filters).compile()));
        for (const [limit, offset] of [
          [20, 0],
          [20, 40 + round],
          [100, 0],
        ]) {
          const window = { sortColumn: 'msn' as const, direction: 'desc' as const, limit, offset };
          expect(asSent(page(db, { ...filters, orgId, limit, offset }, ['msn', 'desc']))).toEqual(
            asSent(repo.pageQuery(orgId, filters, window).compile()),
          );
        }
      }
    }
  });

  it('keeps the structure apart: another sort column is another statement', () => {
    const a = page(db, { orgId: ORG, limit: 20, offset: 0 }, ['msn', 'asc']);
    const b = page(db, { orgId: ORG, limit: 20, offset: 0 }, ['status', 'asc']);
    expect(a.sql).toContain('"msn" asc');
    expect(b.sql).toContain('"status" asc');
  });

  it('compiles per call a builder that puts a value into the SQL text', () => {
    let built = 0;
    const byColumn = statementCache((k: Kysely<DB>, v: { column: string; id: string }) => {
      built++;
      return k
        .selectFrom('teardowns')
        .select('id')
        .where(v.column as 'id', '=', v.id);
    });
    expect(byColumn(db, { column: 'msn', id: 'a' }).sql).toContain('"msn" = $1');
    expect(byColumn(db, { column: 'tail_number', id: 'a' }).sql).toContain('"tail_number" = $1');
    expect(byColumn(db, { column: 'msn', id: 'b' }).parameters).toEqual(['b']);
    expect(built).toBeGreaterThanOrEqual(4);
  });

  it('compiles per call a builder whose values are objects', () => {
    const byRefs = statementCache((k: Kysely<DB>, v: { refs: { column: 'msn' | 'tail_number'; value: string }[] }) => {
      let q = k.selectFrom('teardowns').select('id');
      for (const ref of v.refs) q = q.where(ref.column, '=', ref.value);
      return q;
    });
    const first = byRefs(db, { refs: [{ column: 'msn', value: 'x' }] });
    const second = byRefs(db, { refs: [{ column: 'tail_number', value: 'y' }] });
    expect(first.sql).toContain('"msn" = $1');
    expect(second.sql).toContain('"tail_number" = $1');
    expect(second.parameters).toEqual(['y']);
  });

  it('compiles per call a builder whose value is an object (not an array of them)', () => {
    const byRef = statementCache((k: Kysely<DB>, v: { ref: { column: 'msn' | 'tail_number'; value: string } }) =>
      k.selectFrom('teardowns').select('id').where(v.ref.column, '=', v.ref.value),
    );
    expect(asSent(byRef(db, { ref: { column: 'msn', value: 'x' } }))).toEqual({
      sql: expect.stringContaining('"msn" = $1'),
      parameters: ['x'],
    });
    expect(asSent(byRef(db, { ref: { column: 'tail_number', value: 'y' } }))).toEqual({
      sql: expect.stringContaining('"tail_number" = $1'),
      parameters: ['y'],
    });
  });

  it('finds the last template of defined scalars again only for the same names, each defined', () => {
    const build = (k: Kysely<DB>, v: { orgId: string; since?: Date | null }) => {
      const q = k.selectFrom('teardowns').select('id').where('org_id', '=', v.orgId);
      return v.since ? q.where('updated_at', '>=', v.since) : q;
    };
    const since = statementCache(build);
    const calls: { orgId: string; since?: Date | null }[] = [
      { orgId: ORG, since: new Date('2026-01-02T03:04:05Z') },
      { orgId: ORG, since: undefined },
      { orgId: ORG, since: null },
      { orgId: ORG.replace('0b7e', '1c8f'), since: new Date('2026-02-03T00:00:00Z') },
      { orgId: ORG },
      { since: new Date('2026-03-04T00:00:00Z'), orgId: ORG },
      { orgId: ORG, since: new Date('2026-04-05T00:00:00Z') },
    ];
    for (const values of calls) expect(asSent(since(db, values))).toEqual(asSent(build(db, values).compile()));
  });

  it('binds the id and organization of GET by id', () => {
    const find = statementCache((k: Kysely<DB>, v: { orgId: string; id: string }) => teardownRepository(k).findQuery(v.orgId, v.id));
    for (const id of ['a1', 'b2']) {
      expect(asSent(find(db, { orgId: ORG, id }))).toEqual(asSent(repo.findQuery(ORG, id).compile()));
    }
  });
});
