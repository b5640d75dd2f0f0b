// Secrets and signatures, the Standard Webhooks way (https://www.standardwebhooks.com):
// a secret is `whsec_` + base64 of 32 random bytes; a request is signed with
// `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the decoded secret>`,
// and while a rotated-out secret is still valid its signature follows, space-separated.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_VALID_MS = 24 * 3600_000;

export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

const keyOf = (secret: string) => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/** One `v1,<base64>` signature of a message. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export interface SigningSecrets {
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** The `webhook-signature` value: the current secret's signature, then the previous one's while it is valid. */
export function signatureHeader(secrets: SigningSecrets, id: string, timestampSeconds: number, body: string, now: Date): string {
  const signatures = [sign(secrets.secret, id, timestampSeconds, body)];
  if (secrets.previous_secret && secrets.previous_secret_expires_at && secrets.previous_secret_expires_at.getTime() > now.getTime()) {
    signatures.push(sign(secrets.previous_secret, id, timestampSeconds, body));
  }
  return signatures.join(' ');
}
