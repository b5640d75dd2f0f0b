// Receiving webhooks: verification of a delivery the Standard Webhooks way
// (https://www.standardwebhooks.com), with Web Crypto only, so that it runs in Node.js 20+,
// Deno, Bun, edge runtimes and browsers alike.
//
//   webhook-id         the event id, the same on every retry (deduplicate on it)
//   webhook-timestamp  Unix seconds of the attempt
//   webhook-signature  `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{raw body}">`, keyed with the
//                      base64-decoded part of the secret after `whsec_`; two of them, space-separated,
//                      for 24 hours after a rotation (new secret first): any one matching is enough.
import { PartnerSdkError } from './errors.js';
import type { EventType, FeedEvent } from './events.js';

/** A delivery's body: one event of the feed (`data` as in `FeedEvent`), or the `webhook.test` event. */
export type WebhookMessage =
  | { type: EventType; timestamp: string; data: FeedEvent['data'] }
  | { type: 'webhook.test'; timestamp: string; data: { endpoint_id: string; [field: string]: unknown } };

/** A verified delivery: the event id (`webhook-id`), the attempt's time, and the parsed body. */
export interface VerifiedWebhook {
  /** The event id: the same on every retry of this event, and in the feed. */
  id: string;
  /** `webhook-timestamp`, as a Date. */
  timestamp: Date;
  message: WebhookMessage;
}

/** Headers as a fetch `Headers`, or as a plain object (e.g. Node's `IncomingHttpHeaders`), any case. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from `now`, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The receiver's clock (default `Date.now()`). */
  now?: Date | number;
}

/** The delivery is not authentic (or not fresh): answer it 4xx (e.g. 400 or 401), and do not act on it. */
export class WebhookVerificationError extends PartnerSdkError {
  override name = 'WebhookVerificationError';
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
}

/** Standard base64 (padding optional) to bytes; undefined when it is not base64. */
function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** Compares two byte strings in time that depends on their length only. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

async function hmac(secret: string, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (key === undefined || key.length === 0) throw new TypeError('verifyWebhook: a secret is `whsec_` followed by base64');
  const cryptoKey = await globalThis.crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', cryptoKey, content));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isWebhookMessage(value: unknown): value is WebhookMessage {
  return isRecord(value) && typeof value.type === 'string' && typeof value.timestamp === 'string' && isRecord(value.data);
}

/**
 * Checks that a delivery was signed with `secret` (or any of `secrets`, e.g. the old and the new one
 * during a rotation) and is fresh, and answers it parsed. `body` is the raw body exactly as received
 * (string, or bytes): verify before parsing, never a re-serialised object. Throws
 * WebhookVerificationError when a header is missing, the timestamp is more than `toleranceSeconds`
 * (default 5 minutes) from `now`, no `v1,` signature matches (compared in constant time), or the
 * body is not a webhook message.
 */
export async function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  body: string | Uint8Array | ArrayBuffer,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('verifyWebhook: no secret given');
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatureText = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatureText) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');

  if (!/^\d{1,15}$/.test(timestampText.trim())) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const seconds = Number(timestampText.trim());
  const now = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now / 1000 - seconds) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');

  const raw = bodyBytes(body);
  const prefix = encoder.encode(`${id}.${seconds}.`);
  const content = new Uint8Array(prefix.length + raw.length);
  content.set(prefix);
  content.set(raw, prefix.length);

  const candidates = signatureText
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .flatMap((part) => {
      const bytes = fromBase64(part.slice(3));
      return bytes ? [bytes] : [];
    });
  let matched = false;
  for (const key of secrets) {
    const expected = await hmac(key, content);
    // Every candidate is compared, whatever an earlier one gave: the time says nothing about which matched.
    for (const candidate of candidates) matched = constantTimeEqual(expected, candidate) || matched;
  }
  if (!matched) throw new WebhookVerificationError('No matching signature');

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
  if (!isWebhookMessage(parsed)) throw new WebhookVerificationError('The body is not a webhook message');
  return { id, timestamp: new Date(seconds * 1000), message: parsed };
}
