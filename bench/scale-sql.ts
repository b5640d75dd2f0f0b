// The two statements a teardown list runs (the page and the count), built by the service's own
// repository (src/teardowns/repository.ts pageQuery / countQuery) from the filters the service builds
// for the same request (bench/floor-requests.ts, shared with the read floor), and compiled, so the SQL
// explained here is what the service sends.
import { CompiledQuery } from 'kysely';
import { systemClock } from '../src/clock.js';
import type { Database } from '../src/db/database.js';
import { anchorable, anchorKey, createPageAnchors } from '../src/teardowns/page-anchors.js';
import { teardownRepository } from '../src/teardowns/repository.js';
import { decodeFloorList, type FloorTeardownList, PER_PAGE, type TeardownListAsk, teardownListRequest } from './floor-requests.js';

export { PER_PAGE };
export type ListAsk = TeardownListAsk;

interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

export interface ListStatements {
  /** The page as the service reads it once the request has been seen: from its kept position for a deep page. */
  page: Statement;
  /** A deep page's first request: OFFSET up to it (undefined when the page has no kept position). */
  firstPage?: Statement;
  /** The count of the first request; later ones reuse it while the organization is unchanged (events/exact-totals.ts). */
  count: Statement;
}

/**
 * The repository's page and count statements for one list request of `orgId`, with the search's
 * candidate rows looked up first as the service does (their lookup is not explained: 0.2 ms at most),
 * and a deep page's position found as the service finds it (teardowns/page-anchors.ts).
 */
export async function listStatements(db: Database, orgId: string, ask: ListAsk): Promise<ListStatements> {
  const spec = decodeFloorList<FloorTeardownList>(teardownListRequest(orgId, ask).floorQuery);
  const repo = teardownRepository(db);
  const filters = await repo.withSearchCandidates(spec.orgId, spec.filters);
  const count = repo.countQuery(spec.orgId, filters).compile();
  const offsetPage = repo.pageQuery(spec.orgId, filters, spec.window).compile();
  if (!anchorable(spec.window)) return { page: offsetPage, count };
  const anchors = createPageAnchors({ clock: systemClock, maxEntries: 10, maxAgeMs: 600_000 });
  await repo.page(spec.orgId, filters, spec.window, anchors);
  const kept = anchors.kept.peek(anchorKey(spec.orgId, filters, spec.window, spec.window.offset));
  if (!kept) return { page: offsetPage, count };
  const sought = repo.pageQuery(spec.orgId, filters, { ...spec.window, offset: 0, after: kept.value }).compile();
  return { page: sought, firstPage: offsetPage, count };
}

export interface Explained {
  sql: string;
  parameters: readonly unknown[];
  plan: string;
  executionMs: number;
}

/** EXPLAIN (ANALYZE, BUFFERS), run twice: the first warms the cache, the second is kept. */
export async function explainStatement(db: Database, statement: Statement): Promise<Explained> {
  const query = CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, [...statement.parameters]);
  await db.executeQuery(query);
  const result = await db.executeQuery<{ 'QUERY PLAN': string }>(query);
  const plan = result.rows.map((r) => r['QUERY PLAN']).join('\n');
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN);
  return { ...statement, plan, executionMs };
}
