// EXPLAIN (ANALYZE, BUFFERS) of the list queries on the seeded full-size data, for bench/EXPLAIN.md.
// The statements are the service's own, compiled by its repositories, as the floor sends them.
import { CompiledQuery } from 'kysely';
import type { Database } from '../src/db/database.js';
import { pageOffset } from '../src/db/list-query.js';
import { listingsRepository } from '../src/listings/repository.js';
import { type Pools, PROBE_ORG } from './dataset.js';
import { decodeFloorList, type FloorListingList, listingListRequest, type TeardownListAsk } from './floor-requests.js';
import { listStatements } from './scale-sql.js';
import { BROAD_TERM } from './scenarios.js';
import type { SeededOrg } from './seed.js';

interface Query {
  text: string;
  values: readonly unknown[];
}
const toQuery = (compiled: { sql: string; parameters: readonly unknown[] }): Query => ({ text: compiled.sql, values: compiled.parameters });

export interface ExplainedQuery {
  title: string;
  sql: string;
  values: readonly unknown[];
  plan: string;
  executionMs: number;
}

async function explain(db: Database, title: string, query: Query): Promise<ExplainedQuery> {
  const compiled = CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${query.text}`, [...query.values]);
  // The first run warms the cache; the second is the steady state a busy server sees.
  await db.executeQuery(compiled);
  const result = await db.executeQuery<{ 'QUERY PLAN': string }>(compiled);
  const plan = result.rows.map((r) => r['QUERY PLAN']).join('\n');
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN);
  return { title, sql: query.text.replace(/\n\s+/g, '\n  '), values: query.values, plan, executionMs };
}

export async function explainListQueries(db: Database, orgs: SeededOrg[], pools: Pools): Promise<ExplainedQuery[]> {
  const large = orgs[pools.largeOrgs[0]].orgId;
  const small = orgs[pools.largeOrgs.length + 1].orgId;
  const search = pools.searches[0];
  const cases: [string, string, TeardownListAsk][] = [
    ['Teardowns, page 1, large organization', large, {}],
    ['Teardowns, page 1, typical organization', small, {}],
    ['Teardowns, page 1, the 1,000-row probe organization', orgs[PROBE_ORG].orgId, {}],
    [
      'Teardowns, filtered (asset_type=engine, status=active_in_process,active_completed)',
      large,
      { assetType: 'engine', statuses: ['active_in_process', 'active_completed'] },
    ],
    [`Teardowns, deep page ${pools.deepPage}`, large, { page: pools.deepPage }],
    [`Teardowns, selective search (${JSON.stringify(search.term)})`, orgs[search.org].orgId, { search: search.term }],
    [`Teardowns, broad search (${JSON.stringify(BROAD_TERM)})`, large, { search: BROAD_TERM }],
    ['Teardowns, sort_by=msn', large, { sortBy: 'msn', sortDir: 'asc' }],
  ];
  const out: ExplainedQuery[] = [];
  for (const [title, orgId, ask] of cases) {
    // As the service sends them (bench/scale-sql.ts): a search's candidates looked up first, a deep page
    // from its kept position once its first request walked the index by OFFSET.
    const statements = await listStatements(db, orgId, ask);
    out.push(await explain(db, `${title}: page query`, toQuery(statements.page)));
    if (statements.firstPage)
      out.push(await explain(db, `${title}: page query of the first request (OFFSET)`, toQuery(statements.firstPage)));
    out.push(
      await explain(db, `${title}: count query (first request; reused while the organization is unchanged)`, toQuery(statements.count)),
    );
  }
  const listing = decodeFloorList<FloorListingList>(listingListRequest(large, {}).floorQuery);
  const queries = listingsRepository(db).activePageQueries(
    listing.orgId,
    listing.filters,
    { limit: listing.perPage, offset: pageOffset(listing.page, listing.perPage) },
    listing.order,
  );
  out.push(await explain(db, 'Listings, page 1: page query', toQuery(queries.page.compile())));
  out.push(await explain(db, 'Listings, page 1: count query', toQuery(queries.count.compile())));
  return out;
}
