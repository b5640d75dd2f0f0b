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

/**
 * The vocabulary object of `kind` when it is the listing's own kind (null when its term is unset),
 * else undefined: the field is left out of the answer.
 */
function vocabularyField(row: ListingDetailRow, lookup: VocabularyLookup, kind: VocabularyKind) {
  return VOCABULARY_OF_TYPE[row.listing_type] === kind ? lookup(row, kind) : undefined;
}

const sellerOrg = (row: ListingDetailRow) => ({ id: row.org_id, name: row.seller_org_name });

/**
 * The detail shape. Fields the answer leaves out are `undefined`, not absent, so that a listing of
 * any type is an object of one shape (see toDetail in teardowns/view.ts); the serializer and
 * JSON.stringify leave them out. A spread of `{ [kind]: … }` made one shape per listing type: over
 * listings of four types, 4.9 µs against 3.0 per detail and 3.4 against 1.9 per list item, view and
 * serialization (`npx tsx bench/view-shapes.ts`).
 */
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
    audience_set_at: row.audience_set_at ?? undefined,
    documents: row.documents,
    images: row.images,
    aircraft_type: vocabularyField(row, lookup, 'aircraft_type'),
    engine_model: vocabularyField(row, lookup, 'engine_model'),
    apu_model: vocabularyField(row, lookup, 'apu_model'),
    landing_gear_type: vocabularyField(row, lookup, 'landing_gear_type'),
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
    aircraft_type: vocabularyField(row, lookup, 'aircraft_type'),
    engine_model: vocabularyField(row, lookup, 'engine_model'),
    apu_model: vocabularyField(row, lookup, 'apu_model'),
    landing_gear_type: vocabularyField(row, lookup, 'landing_gear_type'),
    seller_org: sellerOrg(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
