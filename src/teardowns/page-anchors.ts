// Deep pages without walking the index up to them. `page=25000` of a 1,000,000-row organization is
// OFFSET 499,980: PostgreSQL reads and skips every entry before the page, 90 ms with the visibility
// map set, and under 50 concurrent requests the pool wait ran out (503). A partner walking the pages
// in order, or several polling one page, asks for positions just found.
//
// So a deep page also fetches the row just before it, and the position of that row and of the page's
// last row are kept, with the organization's event sequence read by the same statement
// (events/sequenced-cache.ts). A later request for the page that starts right after a kept row
// seeks past it in the sort index — (sort column, id) beyond the kept row's — and takes the page's
// rows from there. Its statement reads the sequence again: when it equals the kept one, the
// organization's rows are those the position was found in, so the rows are the page's exactly;
// otherwise the page is taken by OFFSET as before. Requests for a page whose position is being found
// wait for that one walk instead of each walking the index.
import { createSequencedCache, type SequencedCache, type SequencedCacheOptions } from '../events/sequenced-cache.js';
import type { ListFilters, ListWindow, SortColumn } from './repository.js';

/** Below this OFFSET the index walk is cheap (under a millisecond): no anchors. */
export const ANCHORED_FROM_OFFSET = 1000;

/** A row's place in the order: its sort value as PostgreSQL prints it (exact, microseconds included), and its id. */
export interface PageAnchor {
  sortKey: string;
  id: string;
}

/** The SQL type a sort column's printed value is read back as; msn, the only nullable one, has none (no anchors). */
export const SORT_KEY_TYPES: Record<SortColumn, string | undefined> = {
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  start_date: 'date',
  status: 'text',
  country: 'text',
  asset_type: 'text',
  msn: undefined,
};

export const anchorable = (w: ListWindow) => w.offset >= ANCHORED_FROM_OFFSET && SORT_KEY_TYPES[w.sortColumn] !== undefined;

/** Where the anchor of the page at `offset` is kept: the organization, the filters and the order it holds in. */
export function anchorKey(orgId: string, filters: ListFilters, w: ListWindow, offset: number): string {
  // The search's candidates are looked up anew by each request: the same filters find the same rows.
  const { candidateIds, ...asked } = filters;
  return `${orgId}\u0000${JSON.stringify(asked)}\u0000${w.sortColumn}\u0000${w.direction}\u0000${offset}`;
}

/** Kept positions, and the OFFSET walks under way: concurrent requests for one page wait for one walk. */
export interface PageAnchors {
  kept: SequencedCache<PageAnchor>;
  walking: Map<string, Promise<unknown>>;
}

export const createPageAnchors = (options: SequencedCacheOptions): PageAnchors => ({
  kept: createSequencedCache<PageAnchor>(options),
  walking: new Map(),
});
