// What one delivery sends: the Standard Webhooks body and headers of an event, signed with the
// endpoint's secret(s), through the sender; and the retry schedule that follows a failure.
import type { Clock } from '../clock.js';
import type { Sender, SendResult } from './sender.js';
import { USER_AGENT } from './sender.js';
import { type SigningSecrets, signatureHeader } from './signature.js';

/** An endpoint that fails without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3600_000;

export interface OutgoingEvent {
  id: string;
  type: string;
  created_at: Date;
  data: Record<string, unknown>;
}

/** The body partners receive: `{type, timestamp, data}` (Standard Webhooks). */
export const webhookBody = (event: OutgoingEvent): string =>
  JSON.stringify({ type: event.type, timestamp: event.created_at.toISOString(), data: event.data });

export async function sendEvent(
  sender: Sender,
  clock: Clock,
  endpoint: SigningSecrets & { url: string },
  event: OutgoingEvent,
): Promise<SendResult> {
  const now = clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = webhookBody(event);
  return sender.send({
    url: endpoint.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(endpoint, event.id, timestamp, body, now),
    },
  });
}

/** When the next attempt is due after `failures` failed attempts in a row (1 or more). */
export function nextRetryAt(now: Date, failures: number, scheduleSeconds: readonly number[]): Date {
  const seconds = scheduleSeconds[Math.min(failures, scheduleSeconds.length) - 1] ?? 0;
  return new Date(now.getTime() + seconds * 1000);
}
