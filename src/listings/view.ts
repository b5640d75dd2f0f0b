// The JSON shapes of a listing: the detail (create, get, PATCH) and the list item.

import type { StoredListingType } from '../domain/listings.js';
import type { VocabularyKind } from '../domain/records.js';
import type { VocabularyLookup } from '../vocabularies/attach.js';
import type { ListingDetailRow } from './repository.js';

/** The vocabulary each listing type is classified by; legacy `parts` rows have none. */
export const VOCABULARY_OF_TYPE = {
  aircraft: 'aircraft_type',
  engine: 'engine_model',
  apu: 'apu_model',
  landing_gear: 'landing_gear_type',
  parts: undefined,
} as const satisfies Record<StoredListingType, VocabularyKind | undefined>;

/** `{ <kind>: object | null }` for the listing's own kind only. */
function vocabularyOf(row: ListingDetailRow, lookup: VocabularyLookup) {
  const kind = VOCABULARY_OF_TYPE[row.listing_type];
  return kind ? { [kind]: lookup(row, kind) } : {};
}

const sellerOrg = (row: ListingDetailRow) => ({ id: row.org_id, name: row.seller_org_name });

export function toListingDetail(row: ListingDetailRow, lookup: VocabularyLookup) {
  return {
    id: row.id,
    org_id: row.org_id,
    created_by: row.created_by,
    listing_type: row.listing_type,
    title: row.title,
    description: row.description,
    msn: row.msn,
    condition: row.condition,
    price_usd: row.price_usd,
    country: row.country,
    manufacturer: row.manufacturer,
    part_number: row.part_number,
    cycles_remaining: row.cycles_remaining,
    status: row.status,
    audience: row.audience,
    // Absent until an audience was ever set (decisions.md section 5).
    ...(row.audience_set_at ? { audience_set_at: row.audience_set_at } : {}),
    documents: row.documents,
    images: row.images,
    ...vocabularyOf(row, lookup),
    seller_org: sellerOrg(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toListingListItem(row: ListingDetailRow, lookup: VocabularyLookup) {
  return {
    id: row.id,
    listing_type: row.listing_type,
    title: row.title,
    msn: row.msn,
    condition: row.condition,
    price_usd: row.price_usd,
    country: row.country,
    status: row.status,
    cycles_remaining: row.cycles_remaining,
    ...vocabularyOf(row, lookup),
    seller_org: sellerOrg(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
