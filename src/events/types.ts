// The event types of the sync feed and webhooks (issue 11), spelled out once.
import type { RecordEntity } from '../domain/records.js';

const RECORD_EVENT_CHANGES = ['created', 'updated', 'status_changed', 'file_added', 'file_removed', 'deleted'] as const;
export type RecordEventChange = (typeof RECORD_EVENT_CHANGES)[number];

/** `teardown.created`, ..., `listing.deleted`: every type the feed can carry, in a stable order. */
export const EVENT_TYPES = (['teardown', 'listing'] as const).flatMap((entity) =>
  RECORD_EVENT_CHANGES.map((change) => `${entity}.${change}` as const),
);
export type EventType = `${RecordEntity}.${RecordEventChange}`;

/** Sent only by POST /webhook-endpoints/{id}/test; never in the feed. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const eventType = (entity: RecordEntity, change: RecordEventChange): EventType => `${entity}.${change}`;
