// The two statements a teardown list runs (the page and the exact count), taken from the service's
// own repository: src/teardowns/repository.ts is run against a Kysely whose driver executes nothing
// and whose log hook records each compiled statement, so the SQL explained here is, character for
// character and parameter for parameter, what the service sends for the same query string.
import {
  CompiledQuery as Compiled,
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import type { Database } from '../src/db/database.js';
import { containsPattern, pageOffset } from '../src/db/list-query.js';
import type { DB } from '../src/db/schema.js';
import { type ListFilters, type SortColumn, teardownRepository } from '../src/teardowns/repository.js';

export const PER_PAGE = 20;

/** What a list request asks for, as the service reads it (src/teardowns/service.ts listTeardowns). */
export interface ListAsk {
  page: number;
  search?: string;
  sortColumn?: SortColumn;
}

export interface ListStatements {
  page: { sql: string; parameters: readonly unknown[] };
  count: { sql: string; parameters: readonly unknown[] };
}

/** Compiles the repository's `count` and `page` for one request of `orgId`. */
export async function listStatements(orgId: string, ask: ListAsk): Promise<ListStatements> {
  const recorded: CompiledQuery[] = [];
  const recorder = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      recorded.push(event.query);
    },
  });
  // The filters listTeardowns builds from a query string with only `search` (and the defaults).
  const filters: ListFilters = { searchPattern: ask.search ? containsPattern(ask.search) : undefined };
  const repo = teardownRepository(recorder);
  // The dummy driver answers no rows: count's executeTakeFirstOrThrow throws after the statement is logged.
  await repo.count(orgId, filters).catch(() => 0);
  const countQuery = recorded.pop();
  await repo.page(orgId, filters, {
    sortColumn: ask.sortColumn ?? 'created_at',
    direction: 'desc',
    limit: PER_PAGE,
    offset: pageOffset(ask.page, PER_PAGE),
  });
  const pageQuery = recorded.pop();
  await recorder.destroy();
  if (!countQuery || !pageQuery) throw new Error('the repository ran no statement');
  return {
    page: { sql: pageQuery.sql, parameters: pageQuery.parameters },
    count: { sql: countQuery.sql, parameters: countQuery.parameters },
  };
}

export interface Explained {
  sql: string;
  parameters: readonly unknown[];
  plan: string;
  executionMs: number;
}

/** EXPLAIN (ANALYZE, BUFFERS), run twice: the first warms the cache, the second is kept. */
export async function explainStatement(db: Database, statement: { sql: string; parameters: readonly unknown[] }): Promise<Explained> {
  const query = Compiled.raw(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, [...statement.parameters]);
  await db.executeQuery(query);
  const result = await db.executeQuery<{ 'QUERY PLAN': string }>(query);
  const plan = result.rows.map((r) => r['QUERY PLAN']).join('\n');
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN);
  return { ...statement, plan, executionMs };
}
