// A list request as the floor receives it: the filters the service would build from the query
// string, already resolved (vocabulary ids, escaped LIKE patterns), in one base64url JSON parameter.
// The scenarios build both sides from one description, so the floor runs the statement the service
// runs for the same request.
import { pageOffset } from '../src/db/list-query.js';
import { searchFilters } from '../src/db/search-narrowing.js';
import type { ListingFilters, ListingOrder } from '../src/listings/repository.js';
import type { ListFilters, ListWindow } from '../src/teardowns/repository.js';
import { SORT_COLUMNS, type SortBy } from '../src/teardowns/schemas.js';

export const PER_PAGE = 20;

export interface FloorTeardownList {
  orgId: string;
  page: number;
  filters: ListFilters;
  window: ListWindow;
}

export interface FloorListingList {
  orgId: string;
  page: number;
  perPage: number;
  filters: ListingFilters;
  order: ListingOrder;
}

export const encodeFloorList = (spec: FloorTeardownList | FloorListingList) => Buffer.from(JSON.stringify(spec)).toString('base64url');
export const decodeFloorList = <T>(q: string): T => JSON.parse(Buffer.from(q, 'base64url').toString('utf8')) as T;

/** What a teardown list request asks, in the service's query-string terms. */
export interface TeardownListAsk {
  page?: number;
  search?: string;
  /** The API's sort_by (SORT_COLUMNS maps it to the column). */
  sortBy?: SortBy;
  sortDir?: 'asc' | 'desc';
  assetType?: 'aircraft' | 'engine';
  statuses?: string[];
  /** Name for the service, id for the floor. */
  aircraftType?: { name: string; id: string };
}

/** The service's query string and the floor's `q` for one teardown list request. */
export function teardownListRequest(orgId: string, ask: TeardownListAsk): { serviceQuery: string; floorQuery: string } {
  const page = ask.page ?? 1;
  const params = new URLSearchParams({ page: String(page) });
  if (ask.search !== undefined) params.set('search', ask.search);
  if (ask.sortBy) params.set('sort_by', ask.sortBy);
  if (ask.sortDir) params.set('sort_dir', ask.sortDir);
  if (ask.assetType) params.set('asset_type', ask.assetType);
  if (ask.statuses) params.set('status', ask.statuses.join(','));
  if (ask.aircraftType) params.set('aircraft_type', ask.aircraftType.name);
  // The service's defaults: created_at, descending (src/teardowns/schemas.ts ListTeardownsQuery).
  const filters: ListFilters = {
    ...(ask.assetType ? { assetType: ask.assetType } : {}),
    ...(ask.statuses ? { statuses: ask.statuses as ListFilters['statuses'] } : {}),
    ...(ask.aircraftType ? { aircraftTypeId: ask.aircraftType.id } : {}),
    ...(ask.search !== undefined ? searchFilters(ask.search) : {}),
  };
  const window: ListWindow = {
    sortColumn: SORT_COLUMNS[ask.sortBy ?? 'created_at'],
    direction: ask.sortDir ?? 'desc',
    limit: PER_PAGE,
    offset: pageOffset(page, PER_PAGE),
  };
  return { serviceQuery: params.toString(), floorQuery: encodeFloorList({ orgId, page, filters, window }) };
}

/** The service's query string and the floor's `q` for one active-listings list request. */
export function listingListRequest(orgId: string, ask: { page?: number; search?: string }): { serviceQuery: string; floorQuery: string } {
  const page = ask.page ?? 1;
  const params = new URLSearchParams({ page: String(page) });
  if (ask.search !== undefined) params.set('search', ask.search);
  const filters: ListingFilters = { vocabulary: [], ...(ask.search !== undefined ? searchFilters(ask.search) : {}) };
  return {
    serviceQuery: params.toString(),
    floorQuery: encodeFloorList({ orgId, page, perPage: PER_PAGE, filters, order: { sortBy: 'created_at', direction: 'desc' } }),
  };
}
