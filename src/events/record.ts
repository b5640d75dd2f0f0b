// Which change of a teardown or listing writes which event (docs/behaviour.md "Events"), spelled
// out once. The services build their events with these and hand them to `appendEvents` as the last
// statement of the transaction that made the change.
import type { RecordEntity } from '../domain/records.js';
import type { NewEvent } from './log.js';
import { eventType, type RecordEventChange } from './types.js';

/** One committed change of one record, and the record as GET by id answers it after the change. */
export interface RecordChange {
  entity: RecordEntity;
  orgId: string;
  entityId: string;
  /** The time of the change (the clock of the writing request or job). */
  at: Date;
  /** The detail view (`taggedDetail(...).body`, `toListingDetail`), or for a delete the fields its audit row keeps. */
  object: unknown;
}

/** A file as a file event names it: never a secret, only what the record's own fields show. */
export interface AddedFile {
  kind: 'document' | 'image';
  /** The teardown slot the upload filled, else null. */
  slot: string | null;
  url: string;
  filename: string;
  size: number;
  content_type: string;
  /** A slot upload that replaced another URL: that URL (it stays in documents[]). */
  previous_url?: string;
}

export interface RemovedFile {
  kind: 'document' | 'image';
  url: string;
  /** The teardown slots the removal emptied (a removal by URL clears the slots holding it). */
  slots: string[];
}

/** One event of a change: `data` is `{entity_id, object, ...extra}` (entity_id is added by appendEvents). */
export function recordEvent(change: RecordChange, kind: RecordEventChange, extra: Record<string, unknown> = {}): NewEvent {
  return {
    orgId: change.orgId,
    type: eventType(change.entity, kind),
    entityType: change.entity,
    entityId: change.entityId,
    data: { object: change.object, ...extra },
    createdAt: change.at,
  };
}

/**
 * The events of a write that may move the status (a listing PATCH, an operator moderation):
 * `updated` when anything but the status was sent, `status_changed` (with `previous_status`) when
 * the status really changed; a write that rewrote the same status and nothing else is `updated`,
 * since the record did change (updated_at, ETag). Never an empty list: every write has an event.
 */
export function writeEvents(change: RecordChange, status: { previous: string; current: string }, otherFieldsSent: boolean): NewEvent[] {
  const moved = status.previous !== status.current;
  const events: NewEvent[] = [];
  if (otherFieldsSent || !moved) events.push(recordEvent(change, 'updated'));
  if (moved) events.push(recordEvent(change, 'status_changed', { previous_status: status.previous }));
  return events;
}

export const statusChanged = (change: RecordChange, previousStatus: string) =>
  recordEvent(change, 'status_changed', { previous_status: previousStatus });

export const fileAdded = (change: RecordChange, file: AddedFile) => recordEvent(change, 'file_added', { file });

export const fileRemoved = (change: RecordChange, file: RemovedFile) => recordEvent(change, 'file_removed', { file });
