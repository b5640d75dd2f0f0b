// Request and response schemas of the sales / lease / exchange listings (decisions.md section 5).
import { Type } from '@sinclair/typebox';
import { ALL_LISTING_TYPES, LISTING_CREATE_STATUSES, LISTING_STATUSES, LISTING_TYPES } from '../domain/listings.js';
import { AUDIENCE_VALUES } from '../domain/records.js';
import {
  CountryCode,
  DateTime,
  HttpUrl,
  ImportEnvelope,
  ImportResult,
  Nullable,
  PaginationQuery,
  StringEnum,
  Text,
  Timestamp,
  UpdatedSince,
  Uuid,
} from '../http/schemas.js';
import { VocabularyView } from '../vocabularies/schemas.js';

// Generous bounds: no real value comes near them, and no field may carry megabytes or Infinity.
const Title = Type.String({ minLength: 1, maxLength: 300 });
const Description = Text(10_000);
const ShortText = Text(200);
const VocabularyName = Type.String({ minLength: 1, maxLength: 200, description: 'Vocabulary name; case-insensitive, edges trimmed.' });
const PriceUsd = Type.Number({ minimum: 0, maximum: 1e12 });
const CyclesRemaining = Type.Number({ minimum: 0, maximum: 1e9 });
const UrlList = Type.Array(HttpUrl, { maxItems: 1000 });

const optionalFields = {
  description: Type.Optional(Description),
  msn: Type.Optional(ShortText),
  condition: Type.Optional(ShortText),
  price_usd: Type.Optional(PriceUsd),
  country: Type.Optional(CountryCode),
  manufacturer: Type.Optional(ShortText),
  part_number: Type.Optional(ShortText),
  cycles_remaining: Type.Optional(CyclesRemaining),
};

const vocabularyFields = {
  aircraft_type: Type.Optional(VocabularyName),
  engine_model: Type.Optional(VocabularyName),
  apu_model: Type.Optional(VocabularyName),
};

export const CreateListingBody = Type.Object(
  {
    listing_type: StringEnum(LISTING_TYPES),
    title: Title,
    ...vocabularyFields,
    ...optionalFields,
    status: Type.Optional(StringEnum(LISTING_CREATE_STATUSES, { description: 'Default active' })),
  },
  {
    additionalProperties: false,
    description: 'The vocabulary field of the listing type (aircraft_type, engine_model or apu_model) is required; the others are ignored.',
  },
);

export const UpdateListingBody = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(Description)),
    msn: Type.Optional(Nullable(ShortText)),
    condition: Type.Optional(Nullable(ShortText)),
    manufacturer: Type.Optional(Nullable(ShortText)),
    part_number: Type.Optional(Nullable(ShortText)),
    price_usd: Type.Optional(Nullable(PriceUsd)),
    cycles_remaining: Type.Optional(Nullable(CyclesRemaining)),
    country: Type.Optional(Nullable(CountryCode)),
    audience: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }))),
    status: Type.Optional(StringEnum(LISTING_STATUSES)),
    ...vocabularyFields,
    images: Type.Optional(UrlList),
    documents: Type.Optional(UrlList),
  },
  {
    additionalProperties: false,
    description: 'Sparse: only the keys sent are written. Only the vocabulary field of the listing type is applied.',
  },
);

export const ListingIdParams = Type.Object({ listing_id: Type.String({ description: 'Listing UUID' }) });
export const AdminListingParams = Type.Object({ id: Type.String({ description: 'Listing UUID' }) });

export const AdminListingStatusBody = Type.Object(
  {
    status: StringEnum(LISTING_STATUSES, { description: '`suspended` puts the listing under an operator hold; any other status lifts it' }),
    reason: Type.Optional(Type.String({ maxLength: 2000, description: 'Kept in the audit row metadata' })),
  },
  { additionalProperties: false },
);

const FilterText = Type.String({ maxLength: 200 });
export const ListingQuery = Type.Object({
  listing_type: Type.Optional(StringEnum(LISTING_TYPES)),
  aircraft_type: Type.Optional(FilterText),
  engine_model: Type.Optional(FilterText),
  apu_model: Type.Optional(FilterText),
  condition: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive equality' })),
  country: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of title, description or msn' })),
  updated_since: Type.Optional(UpdatedSince),
  sort_by: StringEnum(['created_at', 'updated_at'], { default: 'created_at', description: 'Sort key; ties broken by id in the same direction.' }),
  sort_dir: StringEnum(['asc', 'desc'], { default: 'desc' }),
  ...PaginationQuery,
});

// Only the key of the listing's own type is present (null when a legacy row names none).
const vocabularyObjects = {
  aircraft_type: Type.Optional(Nullable(VocabularyView)),
  engine_model: Type.Optional(Nullable(VocabularyView)),
  apu_model: Type.Optional(Nullable(VocabularyView)),
  landing_gear_type: Type.Optional(Nullable(VocabularyView)),
};

const SellerOrg = Type.Object({ id: Uuid, name: Type.String() });

export const ListingDetail = Type.Object({
  id: Uuid,
  org_id: Uuid,
  created_by: Uuid,
  listing_type: StringEnum(ALL_LISTING_TYPES),
  title: Type.String(),
  description: Nullable(Type.String()),
  msn: Nullable(Type.String()),
  condition: Nullable(Type.String()),
  price_usd: Nullable(Type.Number()),
  country: Nullable(Type.String()),
  manufacturer: Nullable(Type.String()),
  part_number: Nullable(Type.String()),
  cycles_remaining: Nullable(Type.Number()),
  status: StringEnum(LISTING_STATUSES),
  audience: Nullable(Type.Array(StringEnum(AUDIENCE_VALUES))),
  audience_set_at: Type.Optional(Timestamp),
  documents: Nullable(Type.Array(Type.String())),
  images: Nullable(Type.Array(Type.String())),
  ...vocabularyObjects,
  seller_org: SellerOrg,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ListingListItem = Type.Object({
  id: Uuid,
  listing_type: StringEnum(ALL_LISTING_TYPES),
  title: Type.String(),
  msn: Nullable(Type.String()),
  condition: Nullable(Type.String()),
  price_usd: Nullable(Type.Number()),
  country: Nullable(Type.String()),
  status: StringEnum(LISTING_STATUSES),
  cycles_remaining: Nullable(Type.Number()),
  ...vocabularyObjects,
  seller_org: SellerOrg,
  created_at: Timestamp,
  updated_at: Timestamp,
});

// --- operator import (decisions.md section 7)

export const ImportListingItem = Type.Object(
  {
    listing_type: StringEnum(ALL_LISTING_TYPES),
    title: Title,
    ...vocabularyFields,
    landing_gear_type: Type.Optional(VocabularyName),
    ...optionalFields,
    status: Type.Optional(StringEnum(LISTING_STATUSES, { description: 'Default active' })),
    audience: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }))),
    documents: Type.Optional(Nullable(UrlList)),
    images: Type.Optional(Nullable(UrlList)),
    created_at: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

export const ImportListingsBody = ImportEnvelope(ImportListingItem);

export { ImportResult };
