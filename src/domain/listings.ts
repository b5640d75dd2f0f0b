// The closed sets of sales / lease / exchange listings (partner-api.md "Listing", decisions.md section 5).

/** Types a partner may create and filter on. */
export const LISTING_TYPES = ['aircraft', 'engine', 'apu'] as const;
export type ListingType = (typeof LISTING_TYPES)[number];
/** Every type a stored row may have: `parts` and `landing_gear` are legacy, readable by id only. */
export const ALL_LISTING_TYPES = [...LISTING_TYPES, 'parts', 'landing_gear'] as const;
export type StoredListingType = (typeof ALL_LISTING_TYPES)[number];

export const LISTING_STATUSES = [
  'active',
  'under_offer',
  'sold',
  'leased',
  'exchanged',
  'suspended',
  'archived',
  'draft',
  'pending_review',
] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** The statuses a listing may be created in. */
export const LISTING_CREATE_STATUSES = ['active', 'draft'] as const satisfies readonly ListingStatus[];
