// EXPLAIN (ANALYZE, BUFFERS) of the list queries on the seeded full-size data, for bench/EXPLAIN.md.
import { CompiledQuery } from 'kysely';
import type { Database } from '../src/db/database.js';
import { type Pools, PROBE_ORG } from './dataset.js';
import { listingCount, listingPage, type Query, type TeardownListFilter, teardownCount, teardownPage } from './floors/list-sql.js';
import type { SeededOrg } from './seed.js';

export interface ExplainedQuery {
  title: string;
  sql: string;
  values: unknown[];
  plan: string;
  executionMs: number;
}

async function explain(db: Database, title: string, query: Query): Promise<ExplainedQuery> {
  const compiled = CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${query.text}`, query.values);
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
  const cases: [string, TeardownListFilter][] = [
    ['Teardowns, page 1, large organization', { orgId: large, page: 1 }],
    ['Teardowns, page 1, typical organization', { orgId: small, page: 1 }],
    ['Teardowns, page 1, the 1,000-row probe organization', { orgId: orgs[PROBE_ORG].orgId, page: 1 }],
    [
      'Teardowns, filtered (asset_type=engine, status=active_in_process,active_completed)',
      { orgId: large, page: 1, assetType: 'engine', statuses: ['active_in_process', 'active_completed'] },
    ],
    [`Teardowns, deep page ${pools.deepPage}`, { orgId: large, page: pools.deepPage }],
    [`Teardowns, selective search (${JSON.stringify(search.term)})`, { orgId: orgs[search.org].orgId, page: 1, search: search.term }],
    ['Teardowns, broad search ("harvest")', { orgId: large, page: 1, search: 'harvest' }],
  ];
  const out: ExplainedQuery[] = [];
  for (const [title, filter] of cases) {
    out.push(await explain(db, `${title}: page query`, teardownPage(filter)));
    out.push(await explain(db, `${title}: count query`, teardownCount(filter)));
  }
  out.push(await explain(db, 'Listings, page 1: page query', listingPage(large, 1)));
  out.push(await explain(db, 'Listings, page 1: count query', listingCount(large)));
  return out;
}
