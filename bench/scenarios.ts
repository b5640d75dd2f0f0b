// What the bench sends. Every scenario rotates over many records and organizations, each request
// carrying the owning organization's key; a read scenario has a floor twin sending the same
// rotation to a bare route, so the two are comparable request for request.
import type { Request } from 'autocannon';
import type { SortBy } from '../src/teardowns/schemas.js';
import { type OwnedId, type Pools, PROBE_ORG } from './dataset.js';
import { listingListRequest, type TeardownListAsk, teardownListRequest } from './floor-requests.js';
import type { LoadSpec } from './load.js';
import { MULTIPART_CONTENT_TYPE, multipartPdf } from './multipart.js';
import type { SeededOrg } from './seed.js';

export type FloorKey = 'reads' | 'upload';

export interface Scenario {
  id: string;
  title: string;
  kind: 'read' | 'write' | 'upload';
  service: LoadSpec;
  /** The floor process to start, and the same rotation aimed at its bare routes. */
  floor?: { process: FloorKey; spec: LoadSpec };
  /** Send `service` to the floor process instead (the floor's own A/B: unnamed against named statements). */
  serviceOnFloor?: boolean;
}

export interface ScenarioContext {
  orgs: SeededOrg[];
  pools: Pools;
  uploadBytes: number;
  /** The service's base URL, for the transition scenario's resynchronisation reads. */
  serviceUrl: string;
  /** An aircraft type every organization has rows of: the vocabulary filter. */
  aircraftType: { name: string; id: string };
}

const V1 = '/public/v1';

function auth(org: SeededOrg, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${org.key}`, 'x-organization-id': org.orgId, ...extra };
}

/**
 * Each connection walks `items` from its own starting point, so 50 connections spread over the
 * whole pool instead of hitting the same rows in lockstep.
 */
function rotating<T>(items: T[], build: (item: T, n: number) => Omit<Request, 'setupRequest'>): LoadSpec['connection'] {
  if (items.length === 0) throw new Error('a scenario has nothing to rotate over');
  return (index) => {
    let n = index * 7919;
    // autocannon takes host and port from the request object it passes in: keep them.
    return [{ setupRequest: (request) => ({ ...request, ...build(items[n % items.length], n++) }) }];
  };
}

const get = (path: string, headers: Record<string, string>) => ({ method: 'GET' as const, path, headers, body: undefined });

/** Organizations other than the probe one (which stays at exactly `probeRows` teardowns for the scale comparison). */
const workingOrgs = (orgs: SeededOrg[]) => orgs.filter((o) => o.index !== PROBE_ORG && !o.importTarget);

/** A term most seeded descriptions contain: the search that matches most of an organization. */
export const BROAD_TERM = 'available';

/** One list request per rotation step, as the service receives it and as the floor receives it. */
interface ListRotation {
  org: SeededOrg;
  request: { serviceQuery: string; floorQuery: string };
}

function listScenario(
  id: string,
  title: string,
  path: 'teardowns' | 'sales-lease-exchange',
  rotation: ListRotation[],
  floorPrefix = '',
): Scenario {
  const floorPath = `${floorPrefix}${path === 'teardowns' ? '/teardowns' : '/listings'}`;
  return {
    id,
    title,
    kind: 'read',
    service: { connection: rotating(rotation, (r) => get(`${V1}/${path}?${r.request.serviceQuery}`, auth(r.org))) },
    floor: {
      process: 'reads',
      spec: { connection: rotating(rotation, (r) => get(`${floorPath}?q=${r.request.floorQuery}`, auth(r.org))) },
    },
  };
}

const teardownLists = (orgs: SeededOrg[], ask: TeardownListAsk) =>
  orgs.map((org) => ({ org, request: teardownListRequest(org.orgId, ask) }));

/** Searches for terms that exist in their organization (one row each) and for a term in most rows. */
export function searchScenarios(
  orgs: SeededOrg[],
  searches: { org: number; term: string }[],
  prefix = '',
  titleSuffix = '',
  floorPrefix = '',
): Scenario[] {
  const byIndex = new Map(orgs.map((o) => [o.index, o]));
  const selective = searches.map((s) => ({
    org: byIndex.get(s.org)!,
    request: teardownListRequest(byIndex.get(s.org)!.orgId, { search: s.term }),
  }));
  const orgsSearched = [...new Set(searches.map((s) => s.org))].map((i) => byIndex.get(i)!);
  const partial = searches.map((s) => {
    // The first characters of an MSN: a prefix many serial numbers share.
    const term = s.term.slice(0, Math.max(3, s.term.length - 2));
    return { org: byIndex.get(s.org)!, request: teardownListRequest(byIndex.get(s.org)!.orgId, { search: term }) };
  });
  return [
    listScenario(`${prefix}list-search`, `List teardowns, selective search (one MSN)${titleSuffix}`, 'teardowns', selective, floorPrefix),
    listScenario(
      `${prefix}list-search-partial`,
      `List teardowns, search for part of an MSN${titleSuffix}`,
      'teardowns',
      partial,
      floorPrefix,
    ),
    listScenario(
      `${prefix}list-search-broad`,
      `List teardowns, broad search ("${BROAD_TERM}", in most rows)${titleSuffix}`,
      'teardowns',
      teardownLists(orgsSearched, { search: BROAD_TERM }),
      floorPrefix,
    ),
  ];
}

const SORTS: { sortBy: SortBy; dir: 'asc' | 'desc' }[] = [
  { sortBy: 'msn', dir: 'asc' },
  { sortBy: 'status', dir: 'asc' },
  { sortBy: 'location_country', dir: 'asc' },
  { sortBy: 'teardown_start_date', dir: 'desc' },
  { sortBy: 'asset_type', dir: 'asc' },
  { sortBy: 'updated_at', dir: 'desc' },
];

/**
 * `floorPrefix`: the floor's routes every scenario uses ('/key-lookup' for a service with
 * AUTH_CACHE_SECONDS=0, which looks its key up before every read; bench/floors/reads.ts).
 */
export function readScenarios(ctx: ScenarioContext, floorPrefix = ''): Scenario[] {
  const { orgs, pools } = ctx;
  const list = (id: string, title: string, path: 'teardowns' | 'sales-lease-exchange', rotation: ListRotation[]) =>
    listScenario(id, title, path, rotation, floorPrefix);
  const byId = (servicePath: string, floorPath: string, items: OwnedId[]) => ({
    service: { connection: rotating(items, (r) => get(`${servicePath}/${r.id}`, auth(orgs[r.org]))) },
    floor: { connection: rotating(items, (r) => get(`${floorPrefix}${floorPath}/${r.id}`, auth(orgs[r.org]))) },
  });
  const teardown = byId(`${V1}/teardowns`, '/teardowns', pools.teardownReads);
  const listing = byId(`${V1}/sales-lease-exchange`, '/listings', pools.listingReads);
  const working = workingOrgs(orgs);
  const large = pools.largeOrgs.map((i) => orgs[i]);
  const listingSearches = pools.listingSearches.map((s) => ({
    org: orgs[s.org],
    request: listingListRequest(orgs[s.org].orgId, { search: s.term }),
  }));

  return [
    {
      id: 'get-teardown',
      title: 'Get teardown by id',
      kind: 'read',
      service: teardown.service,
      floor: { process: 'reads', spec: teardown.floor },
    },
    list('list-plain', 'List teardowns, page 1', 'teardowns', teardownLists(working, {})),
    list('list-deep', `List teardowns, deep page ${pools.deepPage}`, 'teardowns', teardownLists(large, { page: pools.deepPage })),
    list(
      'list-filtered',
      'List teardowns, filtered (engines in process or completed)',
      'teardowns',
      teardownLists(working, { assetType: 'engine', statuses: ['active_in_process', 'active_completed'] }),
    ),
    list(
      'list-vocabulary',
      `List teardowns, vocabulary filter (aircraft_type=${ctx.aircraftType.name})`,
      'teardowns',
      teardownLists(working, { aircraftType: ctx.aircraftType }),
    ),
    ...searchScenarios(orgs, pools.searches, '', '', floorPrefix),
    ...SORTS.map((s) =>
      list(
        `list-sort-${s.sortBy}`,
        `List teardowns, sort_by=${s.sortBy}&sort_dir=${s.dir}`,
        'teardowns',
        teardownLists(working, { sortBy: s.sortBy, sortDir: s.dir }),
      ),
    ),
    {
      id: 'get-listing',
      title: 'Get listing by id',
      kind: 'read',
      service: listing.service,
      floor: { process: 'reads', spec: listing.floor },
    },
    list(
      'list-listings',
      'List listings, page 1',
      'sales-lease-exchange',
      working.map((org) => ({ org, request: listingListRequest(org.orgId, {}) })),
    ),
    list('list-listings-search', 'List listings, search (one MSN)', 'sales-lease-exchange', listingSearches),
  ];
}

/**
 * The floor against itself: the same statements as the service sends them (named prepared
 * statements, PostgreSQL) and unnamed. This decides whether preparing pays off.
 */
export function preparedScenarios(ctx: ScenarioContext): Scenario[] {
  const { orgs, pools } = ctx;
  const teardownPaths = (prefix: string) => ({
    connection: rotating(pools.teardownReads, (r) => get(`${prefix}/teardowns/${r.id}`, auth(orgs[r.org]))),
  });
  const lists = teardownLists(workingOrgs(orgs), {});
  const listPaths = (prefix: string) => ({
    connection: rotating(lists, (r) => get(`${prefix}/teardowns?q=${r.request.floorQuery}`, auth(r.org))),
  });
  return [
    {
      id: 'prepared-get',
      title: 'Floor get by id: named prepared (service columns) against unnamed (floor columns)',
      kind: 'read',
      serviceOnFloor: true,
      service: teardownPaths(''),
      floor: { process: 'reads', spec: teardownPaths('/unnamed') },
    },
    {
      id: 'prepared-list',
      title: 'Floor list page 1: named prepared (service columns) against unnamed (floor columns)',
      kind: 'read',
      serviceOnFloor: true,
      service: listPaths(''),
      floor: { process: 'reads', spec: listPaths('/unnamed') },
    },
  ];
}

/** The list scenario on the probe organization only: run once at `probeRows` table rows and once at full size. */
export function probeScenario(orgs: SeededOrg[]): LoadSpec {
  const probe = orgs[PROBE_ORG];
  return { connection: rotating([probe], (o) => get(`${V1}/teardowns?page=1`, auth(o))) };
}

const json = (org: SeededOrg) => auth(org, { 'content-type': 'application/json' });

export function writeScenarios(ctx: ScenarioContext): Scenario[] {
  const { orgs, pools } = ctx;
  let serial = 0;
  const create: LoadSpec = {
    connection: rotating(workingOrgs(orgs), (org) => ({
      method: 'POST',
      path: `${V1}/teardowns`,
      headers: json(org),
      body: JSON.stringify({
        asset_type: 'aircraft',
        status: 'Starting',
        start_date: '2026-01-15',
        location: 'Toulouse',
        country: 'FR',
        aircraft_type: 'A320-200',
        traceability: 'Air France',
        incident_related: 'No',
        msn: `B${process.pid % 1000}-${++serial}`,
        description: 'Bench: A320-200 part-out, landing gear and APU available.',
      }),
    })),
  };
  const patchRequest = (r: OwnedId, n: number) => ({
    method: 'PATCH' as const,
    path: `${V1}/teardowns/${r.id}`,
    headers: json(orgs[r.org]),
    body: JSON.stringify({ description: `Part-out update ${n}: harvest list revised, LLP sheets added.` }),
  });
  const patch: LoadSpec = { connection: rotating(pools.patches, patchRequest) };
  // 90 % reads (by id and page 1 of the same organizations), 10 % PATCH: readers meet writers' row locks and new versions.
  const reads = teardownLists(workingOrgs(orgs), {});
  const mixed: LoadSpec = {
    connection: rotating(pools.patches, (r, n) => {
      if (n % 10 === 0) return patchRequest(r, n);
      if (n % 2 === 0)
        return get(
          `${V1}/teardowns/${pools.teardownReads[n % pools.teardownReads.length].id}`,
          auth(orgs[pools.teardownReads[n % pools.teardownReads.length].org]),
        );
      const list = reads[n % reads.length];
      return get(`${V1}/teardowns?${list.request.serviceQuery}`, auth(list.org));
    }),
  };
  return [
    { id: 'create-teardown', title: 'Create teardown', kind: 'write', service: create },
    { id: 'patch-teardown', title: 'PATCH teardown (description)', kind: 'write', service: patch },
    { id: 'transition', title: 'Transition (unpublish / submit)', kind: 'write', service: transitionSpec(ctx) },
    { id: 'mixed-90-10', title: 'Mixed: 90 % reads (by id, page 1), 10 % PATCH', kind: 'write', service: mixed },
  ];
}

/**
 * Every request must be valid: connection i owns teardowns [4i, 4i+4) and moves each one
 * active -> draft (unpublish) -> active_starting (submit) -> draft ... Before each run the real
 * statuses are read back, since a request cut off at the end of the previous run may or may not
 * have been applied.
 */
function transitionSpec(ctx: ScenarioContext): LoadSpec {
  const { orgs, pools } = ctx;
  const perConnection = 4;
  const isDraft = new Map<string, boolean>();
  return {
    async beforeRun() {
      for (const r of pools.transitions) {
        const res = await fetch(`${ctx.serviceUrl}${V1}/teardowns/${r.id}`, { headers: auth(orgs[r.org]) });
        if (res.status !== 200) throw new Error(`transition scenario: GET ${r.id} answered ${res.status}`);
        isDraft.set(r.id, ((await res.json()) as { status: string }).status === 'draft');
      }
    },
    connection(index) {
      const own = pools.transitions.slice(index * perConnection, (index + 1) * perConnection);
      if (own.length === 0) throw new Error('transition scenario: fewer teardowns than connections');
      let n = 0;
      return [
        {
          setupRequest: (request) => {
            const r = own[n++ % own.length];
            const action = isDraft.get(r.id) ? 'submit' : 'unpublish';
            isDraft.set(r.id, action === 'unpublish');
            return {
              ...request,
              method: 'POST',
              path: `${V1}/teardowns/transition/${r.id}`,
              headers: json(orgs[r.org]),
              body: JSON.stringify({ action }),
            };
          },
        },
      ];
    },
  };
}

export function uploadScenario(ctx: ScenarioContext): Scenario {
  const { orgs, pools } = ctx;
  const body = multipartPdf(ctx.uploadBytes);
  const headers = (r: OwnedId) => auth(orgs[r.org], { 'content-type': MULTIPART_CONTENT_TYPE });
  return {
    id: 'upload-1mb',
    title: 'Upload 1 MB PDF document',
    kind: 'upload',
    service: {
      payloadBytes: ctx.uploadBytes,
      connection: rotating(pools.uploads, (r) => ({ method: 'POST', path: `${V1}/teardown/documents/${r.id}`, headers: headers(r), body })),
    },
    floor: {
      process: 'upload',
      spec: {
        payloadBytes: ctx.uploadBytes,
        connection: rotating(pools.uploads, (r) => ({ method: 'POST', path: `/upload/${r.id}`, headers: headers(r), body })),
      },
    },
  };
}
