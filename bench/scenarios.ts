// What the bench sends. Every scenario rotates over many records and organizations, each request
// carrying the owning organization's key; a read scenario has a floor twin sending the same
// rotation to a bare route, so the two are comparable request for request.
import type { Request } from 'autocannon';
import { type OwnedId, type Pools, PROBE_ORG } from './dataset.js';
import type { LoadSpec } from './load.js';
import { MULTIPART_CONTENT_TYPE, multipartPdf } from './multipart.js';
import type { SeededOrg } from './seed.js';

export type FloorKey = 'get-teardown' | 'list' | 'get-listing' | 'list-listings' | 'upload';

export interface Scenario {
  id: string;
  title: string;
  kind: 'read' | 'write' | 'upload';
  service: LoadSpec;
  /** The floor process to start, and the same rotation aimed at its bare routes. */
  floor?: { process: FloorKey; spec: LoadSpec };
}

export interface ScenarioContext {
  orgs: SeededOrg[];
  pools: Pools;
  uploadBytes: number;
  /** The service's base URL, for the transition scenario's resynchronisation reads. */
  serviceUrl: string;
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
const workingOrgs = (orgs: SeededOrg[]) => orgs.filter((o) => o.index !== PROBE_ORG);

const FILTER = 'asset_type=engine&status=active_in_process,active_completed';

interface ListVariant {
  id: string;
  title: string;
  rotation: { org: number; query: string }[];
}

function listVariants(ctx: ScenarioContext): ListVariant[] {
  const { pools } = ctx;
  const orgs = workingOrgs(ctx.orgs);
  return [
    { id: 'list-plain', title: 'List teardowns, page 1', rotation: orgs.map((o) => ({ org: o.index, query: 'page=1' })) },
    {
      id: 'list-filtered',
      title: 'List teardowns, filtered (engines in process or completed)',
      rotation: orgs.map((o) => ({ org: o.index, query: `${FILTER}&page=1` })),
    },
    {
      id: 'list-deep',
      title: `List teardowns, deep page ${pools.deepPage}`,
      rotation: pools.largeOrgs.map((org) => ({ org, query: `page=${pools.deepPage}` })),
    },
    {
      id: 'list-search',
      title: 'List teardowns, selective search (one MSN)',
      rotation: pools.searches.map((s) => ({ org: s.org, query: `search=${encodeURIComponent(s.term)}` })),
    },
  ];
}

export function readScenarios(ctx: ScenarioContext): Scenario[] {
  const { orgs, pools } = ctx;
  const byId = (servicePath: string, floorPath: string, items: OwnedId[]) => ({
    service: { connection: rotating(items, (r) => get(`${servicePath}/${r.id}`, auth(orgs[r.org]))) },
    floor: { connection: rotating(items, (r) => get(`${floorPath}/${r.id}`, auth(orgs[r.org]))) },
  });
  const teardown = byId(`${V1}/teardowns`, '/teardowns', pools.teardownReads);
  const listing = byId(`${V1}/sales-lease-exchange`, '/listings', pools.listingReads);
  const listingPages = workingOrgs(orgs);

  return [
    {
      id: 'get-teardown',
      title: 'Get teardown by id',
      kind: 'read',
      service: teardown.service,
      floor: { process: 'get-teardown', spec: teardown.floor },
    },
    ...listVariants(ctx).map(
      (v): Scenario => ({
        id: v.id,
        title: v.title,
        kind: 'read',
        service: { connection: rotating(v.rotation, (r) => get(`${V1}/teardowns?${r.query}`, auth(orgs[r.org]))) },
        floor: { process: 'list', spec: { connection: rotating(v.rotation, (r) => get(`/teardowns?${r.query}`, auth(orgs[r.org]))) } },
      }),
    ),
    {
      id: 'get-listing',
      title: 'Get listing by id',
      kind: 'read',
      service: listing.service,
      floor: { process: 'get-listing', spec: listing.floor },
    },
    {
      id: 'list-listings',
      title: 'List listings, page 1',
      kind: 'read',
      service: { connection: rotating(listingPages, (o) => get(`${V1}/sales-lease-exchange?page=1`, auth(o))) },
      floor: { process: 'list-listings', spec: { connection: rotating(listingPages, (o) => get('/listings?page=1', auth(o))) } },
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
  const patch: LoadSpec = {
    connection: rotating(pools.patches, (r, n) => ({
      method: 'PATCH',
      path: `${V1}/teardowns/${r.id}`,
      headers: json(orgs[r.org]),
      body: JSON.stringify({ description: `Part-out update ${n}: harvest list revised, LLP sheets added.` }),
    })),
  };
  return [
    { id: 'create-teardown', title: 'Create teardown', kind: 'write', service: create },
    { id: 'patch-teardown', title: 'PATCH teardown (description)', kind: 'write', service: patch },
    { id: 'transition', title: 'Transition (unpublish / submit)', kind: 'write', service: transitionSpec(ctx) },
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
