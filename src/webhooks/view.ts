// What partners and operators read of an endpoint and of its delivery attempts: never a secret.
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';

export function endpointView(row: WebhookEndpointRow) {
  const previousValid = row.previous_secret_expires_at && row.previous_secret ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    failing_since: row.failing_since,
    consecutive_failures: row.attempt,
    previous_secret_expires_at: previousValid,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type EndpointView = ReturnType<typeof endpointView>;

export const adminEndpointView = (row: WebhookEndpointRow) => ({
  ...endpointView(row),
  org_id: row.org_id,
  last_delivered_seq: row.last_delivered_seq,
  next_attempt_at: row.next_attempt_at,
});

export const deliveryView = (row: WebhookDeliveryRow) => ({
  id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  attempt: row.attempt,
  succeeded: row.status_code !== null && row.status_code >= 200 && row.status_code < 300,
  status_code: row.status_code,
  error: row.error,
  duration_ms: row.duration_ms,
  next_retry_at: row.next_retry_at,
  created_at: row.created_at,
});
