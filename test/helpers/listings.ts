// Listing fixtures: created through the partner API, or imported through the admin API for what
// the partner API cannot make (legacy types, any status, a chosen created_at).
import type { TestApp } from './app.js';
import type { Principal } from './factories.js';

export type ListingJson = Record<string, unknown> & { id: string; status: string; listing_type: string; title: string };

const VOCABULARY_FOR: Record<string, [string, string]> = {
  aircraft: ['aircraft_type', 'A320-200'],
  engine: ['engine_model', 'CFM56-5B'],
  apu: ['apu_model', '131-9A'],
};

/** Creates a listing through POST /sales-lease-exchange; defaults to an active aircraft listing. */
export async function createListing(t: TestApp, principal: Principal, overrides: Record<string, unknown> = {}): Promise<ListingJson> {
  const listingType = (overrides.listing_type as string | undefined) ?? 'aircraft';
  const [field, name] = VOCABULARY_FOR[listingType] ?? ['aircraft_type', 'A320-200'];
  const res = await t.app.inject({
    method: 'POST',
    url: '/public/v1/sales-lease-exchange',
    headers: principal.headers,
    payload: { listing_type: listingType, title: `Listing ${Math.random().toString(36).slice(2, 8)}`, [field]: name, ...overrides },
  });
  if (res.statusCode !== 201) throw new Error(`createListing: expected 201, got ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** Imports listings through the admin API; answers their ids in order. */
export async function importListings(t: TestApp, principal: Principal, items: Record<string, unknown>[]): Promise<string[]> {
  const res = await t.admin('POST', '/admin/v1/import/listings', { org_id: principal.orgId, created_by: principal.userId, items });
  if (res.statusCode !== 201) throw new Error(`importListings: expected 201, got ${res.statusCode}: ${res.body}`);
  return res.json().ids;
}
