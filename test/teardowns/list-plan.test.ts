// The list's page query must compute the page's ids once, whatever the planner's statistics say.
// Rows an organization gained after the last ANALYZE (a bulk import, a burst of creates) are unknown
// to the planner; the ids as `id IN (sub-select)` were then planned as a nested loop that re-ran the
// LIMIT sub-select once per row of the organization (0.7 s for 500 rows). The CTE is MATERIALIZED.
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsPattern } from '../../src/db/list-query.js';
import { teardownRepository } from '../../src/teardowns/repository.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { createTeardown } from '../helpers/teardowns.js';

let t: TestApp;
let known: Principal;
let unknown: Principal;

beforeAll(async () => {
  t = await createTestApp();
  known = await createSeller(t);
  unknown = await createSeller(t);
  const first = await createTeardown(t, known);
  const db = t.database.db;
  // 1,000 rows of a known organization, then statistics; then 500 rows of a new one that the statistics never saw.
  const copy = (org: string, n: number) => sql`
    INSERT INTO teardowns (org_id, created_by, asset_type, aircraft_type_id, start_date, status, location, country, msn, description, published_at, expires_at)
    SELECT ${org}::uuid, created_by, asset_type, aircraft_type_id, start_date, status, location, country, 'MSN ' || g, 'Part-out ' || g, published_at, expires_at
    FROM teardowns, generate_series(1, ${n}::int) g WHERE id = ${first.teardown_id}::uuid`;
  await copy(known.orgId, 1000).execute(db);
  await sql`ANALYZE teardowns`.execute(db);
  await copy(unknown.orgId, 500).execute(db);
});
afterAll(() => t.close());

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}
const limits = (node: PlanNode): PlanNode[] => [...(node['Node Type'] === 'Limit' ? [node] : []), ...(node.Plans ?? []).flatMap(limits)];

describe('list page query plan', () => {
  it('runs the page sub-select once for an organization the statistics do not know', async () => {
    const query = teardownRepository(t.database.db)
      .pageQuery(
        unknown.orgId,
        { searchPattern: containsPattern('MSN 250') },
        { sortColumn: 'created_at', direction: 'desc', limit: 20, offset: 0 },
      )
      .compile();
    const { rows } = await t.database.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`, [...query.parameters]),
    );
    const found = limits(rows[0]['QUERY PLAN'][0].Plan);
    expect(found.length).toBeGreaterThan(0);
    for (const limit of found) expect(limit['Actual Loops']).toBe(1);
  });
});
