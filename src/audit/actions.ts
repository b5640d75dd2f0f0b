// Every audit action the service writes, spelled out once (partner-api.md "Events", decisions.md
// sections 3, 6, 7 and 9). Writers look their action up here; `AuditAction` is the union of them all.
import type { FileNoun, RecordEntity } from '../domain/records.js';
import type { SlotColumn, TransitionAction } from '../domain/teardowns.js';

/** Families named by a pattern are checked against it, key by key. */
type Family<Prefix extends string, Key extends string, Suffix extends string = ''> = { readonly [K in Key]: `${Prefix}.${K}${Suffix}` };

const TEARDOWN_TRANSITIONS = {
  start_processing: 'teardown.start_processing',
  complete: 'teardown.complete',
  unpublish: 'teardown.unpublish',
  archive: 'teardown.archive',
  restore: 'teardown.restore',
  submit: 'teardown.submit',
  approve: 'teardown.approve',
  reject: 'teardown.reject',
  suspend: 'teardown.suspend',
} as const satisfies Family<'teardown', TransitionAction>;

const TEARDOWN_SLOT_UPLOADED = {
  harvest_list: 'teardown.harvest_list.uploaded',
  occm: 'teardown.occm.uploaded',
  aircraft_details_doc: 'teardown.aircraft_details_doc.uploaded',
  non_incident_statement: 'teardown.non_incident_statement.uploaded',
} as const satisfies Family<'teardown', SlotColumn, '.uploaded'>;

const TEARDOWN_SLOT_REMOVED = {
  harvest_list: 'teardown.harvest_list.removed',
  occm: 'teardown.occm.removed',
  aircraft_details_doc: 'teardown.aircraft_details_doc.removed',
  non_incident_statement: 'teardown.non_incident_statement.removed',
} as const satisfies Family<'teardown', SlotColumn, '.removed'>;

/** What teardowns and listings share: audience changes and generic file uploads / removals. */
type RecordFamilies<E extends RecordEntity> = {
  readonly audience: Family<`${E}.audience`, 'set' | 'changed'>;
  readonly uploaded: Family<E, FileNoun, '.uploaded'>;
  readonly removed: Family<E, FileNoun, '.removed'>;
} & { readonly [action: string]: unknown };

export const AUDIT = {
  teardown: {
    created: 'teardown.created',
    updated: 'teardown.updated',
    deleted: 'teardown.deleted',
    audience: { set: 'teardown.audience.set', changed: 'teardown.audience.changed' },
    /** `teardown.<action>` of POST /teardowns/transition. */
    transition: TEARDOWN_TRANSITIONS,
    /** The auto-archive job (decisions.md section 3), metadata.reason = "expired". */
    expired: 'teardown.archived',
    slotUploaded: TEARDOWN_SLOT_UPLOADED,
    slotRemoved: TEARDOWN_SLOT_REMOVED,
    uploaded: { document: 'teardown.document.uploaded', image: 'teardown.image.uploaded' },
    removed: { document: 'teardown.document.removed', image: 'teardown.image.removed' },
    imported: 'teardown.imported',
    expiryChanged: 'teardown.expiry.changed',
  },
  listing: {
    created: 'listing.created',
    updated: 'listing.updated',
    deleted: 'listing.deleted',
    audience: { set: 'listing.audience.set', changed: 'listing.audience.changed' },
    uploaded: { document: 'listing.document.uploaded', image: 'listing.image.uploaded' },
    removed: { document: 'listing.document.removed', image: 'listing.image.removed' },
    imported: 'listing.imported',
    /** Operator status change to `suspended` (sets the hold). */
    suspended: 'listing.suspended',
    /** Operator status change to any other status (lifts the hold). */
    approved: 'listing.approved',
  },
  organization: { created: 'organization.created', updated: 'organization.updated' },
  user: { created: 'user.created', updated: 'user.updated' },
  api_key: { minted: 'api_key.minted', revoked: 'api_key.revoked', rotated: 'api_key.rotated' },
  vocabulary: { created: 'vocabulary.created' },
  webhook_endpoint: {
    created: 'webhook_endpoint.created',
    updated: 'webhook_endpoint.updated',
    deleted: 'webhook_endpoint.deleted',
    secretRotated: 'webhook_endpoint.secret_rotated',
    /** By the delivery worker: a 410 answer, or failing for 3 days (metadata.reason). */
    disabled: 'webhook_endpoint.disabled',
    /** Operator replay: cursor rewound to before an event, endpoint re-enabled. */
    replayed: 'webhook_endpoint.replayed',
  },
} as const satisfies { readonly [E in RecordEntity]: RecordFamilies<E> } & { readonly [entity: string]: unknown };

type LeafOf<T> = T extends string ? T : { [K in keyof T]: LeafOf<T[K]> }[keyof T];

/** Every action an audit row may carry. */
export type AuditAction = LeafOf<typeof AUDIT>;
/** What an audit row is about: the top-level keys of the table. */
export type AuditEntityType = keyof typeof AUDIT;
