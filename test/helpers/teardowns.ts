// Teardown fixtures: created through the partner API, or imported through the admin API for what
// the partner API cannot make (legacy asset types, any status, chosen timestamps).
import type { TestApp } from './app.js';
import type { Principal } from './factories.js';

export type TeardownJson = Record<string, unknown> & {
  teardown_id: string;
  status: string;
  asset_type: string;
  published_at: string;
  expires_at: string;
};

/** A valid create body for each asset type; real names from the built-in vocabulary. */
export function teardownBody(assetType: 'aircraft' | 'engine' = 'aircraft'): Record<string, unknown> {
  return assetType === 'aircraft'
    ? {
        asset_type: 'aircraft',
        status: 'Starting',
        start_date: '2026-03-01',
        location: 'Toulouse',
        country: 'FR',
        aircraft_type: 'A320-200',
        traceability: 'Air France',
        incident_related: 'No',
      }
    : {
        asset_type: 'engine',
        status: 'Starting',
        start_date: '2026-03-01',
        location: 'Shannon',
        country: 'IE',
        engine_model: 'CFM56-5B',
      };
}

/**
 * Creates a teardown through POST /public/v1/teardowns; defaults to an aircraft in Starting.
 * Overrides are merged over the default body of their asset type; an override of `undefined` drops the key.
 */
export async function createTeardown(t: TestApp, principal: Principal, overrides: Record<string, unknown> = {}): Promise<TeardownJson> {
  const assetType = overrides.asset_type === 'engine' ? 'engine' : 'aircraft';
  const payload = Object.fromEntries(Object.entries({ ...teardownBody(assetType), ...overrides }).filter(([, v]) => v !== undefined));
  const res = await t.app.inject({ method: 'POST', url: '/public/v1/teardowns', headers: principal.headers, payload });
  if (res.statusCode !== 201) throw new Error(`createTeardown: expected 201, got ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** Imports teardowns through the admin API (any asset type and status); answers their ids in order. */
export async function importTeardowns(t: TestApp, principal: Principal, items: Record<string, unknown>[]): Promise<string[]> {
  const res = await t.admin('POST', '/admin/v1/import/teardowns', { org_id: principal.orgId, created_by: principal.userId, items });
  if (res.statusCode !== 201) throw new Error(`importTeardowns: expected 201, got ${res.statusCode}: ${res.body}`);
  return res.json().ids;
}

/** Moves a teardown through POST /teardowns/transition/{id}; answers the raw response. */
export function transition(t: TestApp, principal: Principal, id: string, action: string, reason?: string) {
  return t.app.inject({
    method: 'POST',
    url: `/public/v1/teardowns/transition/${id}`,
    headers: principal.headers,
    payload: reason === undefined ? { action } : { action, reason },
  });
}

/** The `total` of GET /public/v1/teardowns with this query string (one item per page: only the total is read). */
export async function listTotal(t: TestApp, principal: Principal, query: string): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `/public/v1/teardowns?per_page=1&${query}`, headers: principal.headers });
  if (res.statusCode !== 200) throw new Error(`listTotal: expected 200, got ${res.statusCode}: ${res.body}`);
  return res.json().total;
}
