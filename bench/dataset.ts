// The shape of the seeded data set, seeded in two phases: first one organization of `probeRows`
// teardowns alone (the small-table measurement), then everything else up to the full size.
import { sql } from 'kysely';
import type { Database } from '../src/db/database.js';
import type { BenchOptions } from './options.js';
import { prepareSchema, type SeededOrg, seedListings, seedOrganizations, seedTeardowns, type Vocabulary } from './seed.js';

export const PROBE_ORG = 0;
const LARGE_ORGS = [1, 2, 3, 4, 5];
const ACTIVE = ['active_starting', 'active_in_process', 'active_completed'];

export interface DatasetPlan {
  teardownsPerOrg: number[];
  listingsPerOrg: number[];
}

/**
 * Organization sizes are uneven, as on the marketplace: the probe organization holds `probeRows`,
 * five large part-out shops share 40% of the rest (deep pages exist only there), the others 60%.
 */
export function planDataset(o: BenchOptions): DatasetPlan {
  const rest = o.teardowns - o.probeRows;
  const smallOrgs = o.organizations - 1 - LARGE_ORGS.length;
  const large = Math.floor((rest * 0.4) / LARGE_ORGS.length);
  const small = Math.floor((rest - large * LARGE_ORGS.length) / smallOrgs);
  const teardownsPerOrg = Array.from({ length: o.organizations }, (_, i) =>
    i === PROBE_ORG ? o.probeRows : LARGE_ORGS.includes(i) ? large : small,
  );
  // Rounding leftovers go to the last organization so the total is exact.
  teardownsPerOrg[o.organizations - 1] += o.teardowns - teardownsPerOrg.reduce((a, b) => a + b, 0);
  const perOrg = Math.floor(o.listings / o.organizations);
  const listingsPerOrg = Array.from({ length: o.organizations }, () => perOrg);
  listingsPerOrg[o.organizations - 1] += o.listings - perOrg * o.organizations;
  return { teardownsPerOrg, listingsPerOrg };
}

export interface SeedState {
  orgs: SeededOrg[];
  vocabulary: Vocabulary;
}

/** Schema, vocabulary, the 50 organizations with their keys, and the probe organization's teardowns. */
export async function seedPhaseOne(db: Database, o: BenchOptions, plan: DatasetPlan): Promise<SeedState> {
  const vocabulary = await prepareSchema(db);
  const orgs = await seedOrganizations(db, o.organizations + o.importOrganizations);
  for (const org of orgs.slice(o.organizations)) org.importTarget = true;
  await seedTeardowns(db, orgs[PROBE_ORG], plan.teardownsPerOrg[PROBE_ORG], 0, vocabulary);
  return { orgs, vocabulary };
}

/** Every other teardown and every listing (statistics: the service's own maintenance pass, bench/backend-run.ts). */
export async function seedPhaseTwo(db: Database, plan: DatasetPlan, state: SeedState): Promise<void> {
  let base = plan.teardownsPerOrg[PROBE_ORG];
  for (const org of state.orgs) {
    if (org.index === PROBE_ORG || org.importTarget) continue;
    await seedTeardowns(db, org, plan.teardownsPerOrg[org.index], base, state.vocabulary);
    base += plan.teardownsPerOrg[org.index];
  }
  let listingBase = 0;
  for (const org of state.orgs) {
    if (org.importTarget) continue;
    await seedListings(db, org, plan.listingsPerOrg[org.index], listingBase, state.vocabulary);
    listingBase += plan.listingsPerOrg[org.index];
  }
}

export interface OwnedId {
  id: string;
  org: number;
}

/** Ids the scenarios rotate over, each with the index of its owning organization (whose key must be used). */
export interface Pools {
  teardownReads: OwnedId[];
  /** Disjoint sets of published teardowns, so that writers never contend for one row by accident. */
  patches: OwnedId[];
  transitions: OwnedId[];
  uploads: OwnedId[];
  listingReads: OwnedId[];
  /** An MSN that exists in the organization: a search that matches about one row. */
  searches: { org: number; term: string }[];
  /** The same for active listings. */
  listingSearches: { org: number; term: string }[];
  deepPage: number;
  largeOrgs: number[];
  counts: { teardowns: number; listings: number };
}

export async function selectPools(db: Database, orgs: SeededOrg[], connections: number): Promise<Pools> {
  const orgIndex = new Map(orgs.map((o) => [o.orgId, o.index]));
  const probe = orgs[PROBE_ORG].orgId;
  const records = (rows: { id: string; org_id: string }[]) => rows.map((r) => ({ id: r.id, org: orgIndex.get(r.org_id)! }));

  const reads = await sql<{ id: string; org_id: string }>`SELECT id, org_id FROM teardowns ORDER BY random() LIMIT 2000`.execute(db);
  const transitionCount = connections * 4;
  const writable = await sql<{ id: string; org_id: string }>`
    SELECT id, org_id FROM teardowns WHERE status = ANY(${ACTIVE}::text[]) AND org_id <> ${probe}::uuid
    ORDER BY random() LIMIT ${1000 + transitionCount + 500}::int`.execute(db);
  const writes = records(writable.rows);
  const listingReads = await sql<{ id: string; org_id: string }>`SELECT id, org_id FROM listings ORDER BY random() LIMIT 2000`.execute(db);
  const searches = await sql<{ org_id: string; msn: string }>`
    SELECT org_id, msn FROM teardowns WHERE msn IS NOT NULL AND status <> 'archived' AND org_id <> ${probe}::uuid
    ORDER BY random() LIMIT 200`.execute(db);
  const listingSearches = await sql<{ org_id: string; msn: string }>`
    SELECT org_id, msn FROM listings WHERE msn IS NOT NULL AND status = 'active' AND listing_type IN ('aircraft', 'engine', 'apu')
    ORDER BY random() LIMIT 200`.execute(db);
  const visible = await sql<{ org_id: string; n: number }>`
    SELECT org_id, count(*)::int AS n FROM teardowns WHERE status <> 'archived' AND org_id = ANY(${LARGE_ORGS.map((i) => orgs[i].orgId)}::uuid[])
    GROUP BY org_id`.execute(db);
  const smallestLarge = Math.min(...visible.rows.map((r) => r.n));
  const counts = await sql<{ teardowns: number; listings: number }>`
    SELECT (SELECT count(*)::int FROM teardowns) AS teardowns, (SELECT count(*)::int FROM listings) AS listings`.execute(db);

  return {
    teardownReads: records(reads.rows),
    patches: writes.slice(0, 1000),
    transitions: writes.slice(1000, 1000 + transitionCount),
    uploads: writes.slice(1000 + transitionCount),
    listingReads: records(listingReads.rows),
    searches: searches.rows.map((r) => ({ org: orgIndex.get(r.org_id)!, term: r.msn })),
    listingSearches: listingSearches.rows.map((r) => ({ org: orgIndex.get(r.org_id)!, term: r.msn })),
    // "Page 200" where the largest organizations are that deep; the last full page where they are not (quick mode).
    deepPage: Math.max(1, Math.min(200, Math.floor(smallestLarge / 20))),
    largeOrgs: LARGE_ORGS,
    counts: counts.rows[0],
  };
}
