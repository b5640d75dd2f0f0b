// Row → the two response shapes: the detail shape (create, PATCH, GET by id) and the list item
// shape, which keeps the legacy names id / registration / location_country.
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import type { TeardownRow } from '../db/schema.js';
import { etagOf, type Tagged } from '../http/conditional.js';
import { loadVocabularyLookup, type VocabularyLookup } from '../vocabularies/attach.js';
import { statusLabel } from './state-machine.js';

/**
 * The detail shape. A field the contract leaves out when it has no value is `undefined` here, not
 * absent: every detail is then an object of one shape, and both the response serializer and
 * JSON.stringify (events) leave undefined out. With `...(x ? { key } : {})` spreads, each mix of
 * present fields was a shape of its own, and rows of mixed shapes sent the literal and the
 * serializer's reads down V8's generic paths: 8.4 µs against 5.4 per detail and serialization over
 * rows of four shapes, the same 4 µs over rows of one (`npx tsx bench/view-shapes.ts`).
 */
export function toDetail(row: TeardownRow, vocabulary: VocabularyLookup) {
  return {
    teardown_id: row.id,
    org_id: row.org_id,
    created_by: row.created_by,
    asset_type: row.asset_type,
    aircraft_type_id: row.aircraft_type_id ?? undefined,
    // Each object only under the asset's own type (decisions.md section 3); legacy types add theirs.
    aircraft_type: row.asset_type === 'aircraft' ? vocabulary(row, 'aircraft_type') : null,
    engine_model: row.asset_type === 'engine' ? vocabulary(row, 'engine_model') : null,
    apu_model: vocabulary(row, 'apu_model') ?? undefined,
    landing_gear_type: vocabulary(row, 'landing_gear_type') ?? undefined,
    tail_number: row.tail_number,
    msn: row.msn,
    traceability: row.traceability,
    incident_related: row.incident_related,
    start_date: row.start_date,
    end_date: row.end_date,
    status: row.status,
    teardown_status_label: statusLabel(row.status),
    description: row.description,
    location: row.location,
    country: row.country,
    audience: row.audience,
    audience_set_at: row.audience_set_at ?? undefined,
    documents: row.documents,
    images: row.images,
    harvest_list: row.harvest_list,
    occm: row.occm,
    aircraft_details_doc: row.aircraft_details_doc,
    non_incident_statement: row.non_incident_statement,
    published_at: row.published_at,
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type ListRow = Pick<
  TeardownRow,
  | 'id'
  | 'org_id'
  | 'asset_type'
  | 'aircraft_type_id'
  | 'msn'
  | 'tail_number'
  | 'status'
  | 'location'
  | 'country'
  | 'description'
  | 'published_at'
  | 'created_at'
  | 'updated_at'
>;

export function toListItem(row: ListRow, vocabulary: VocabularyLookup) {
  return {
    id: row.id,
    org_id: row.org_id,
    asset_type: row.asset_type,
    aircraft_type: vocabulary(row, 'aircraft_type'),
    msn: row.msn,
    registration: row.tail_number,
    status: row.status,
    teardown_status_label: statusLabel(row.status),
    location: row.location,
    location_country: row.country,
    description: row.description,
    published_at: row.published_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type TeardownDetailView = ReturnType<typeof toDetail>;

/**
 * The detail of a row, its vocabulary objects looked up, with its ETag (http/conditional.ts): what
 * every one-record answer sends. At once when the vocabulary terms are cached (a read by id then
 * costs no promise here). `executor`: the caller's transaction, when it holds one (PGlite has a
 * single connection).
 */
export function taggedDetail(
  ctx: Pick<AppContext, 'vocabularies'>,
  row: TeardownRow,
  executor?: Database,
): Tagged<TeardownDetailView> | Promise<Tagged<TeardownDetailView>> {
  const tagged = (vocabulary: VocabularyLookup) => ({ body: toDetail(row, vocabulary), etag: etagOf('teardown', row.id, row.row_version) });
  const vocabulary = loadVocabularyLookup(ctx.vocabularies, [row], executor);
  return typeof vocabulary === 'function' ? tagged(vocabulary) : vocabulary.then(tagged);
}
