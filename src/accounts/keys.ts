// API key material: minting, hashing, display prefix. Only the SHA-256 of a key is ever stored.
import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'svc_live_';
const SECRET_LENGTH = 32;
const DISPLAY_PREFIX_LENGTH = 12;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh live key: the fixed prefix and 32 uniformly random base62 characters (~190 bits). */
export function generateApiKey(): string {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: rejecting bytes above it keeps every character equally likely.
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX + secret;
}

// One-shot hash(): the same digest as createHash().update().digest(), without a Hash object per request.
export function hashApiKey(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** The same SHA-256 as hex text: how a request's key is looked up in the principal cache (half the cost of the Buffer form). */
export function apiKeyDigest(token: string): string {
  return hash('sha256', token, 'hex');
}

export function displayPrefix(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}

const BEARER = /^Bearer[ \t]+(svc_live_[A-Za-z0-9]{1,128})[ \t]*$/i;

/** The token of a well-formed `Authorization: Bearer svc_live_...` header, or undefined. */
export function parseBearer(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = BEARER.exec(header);
  // The scheme is case-insensitive (RFC 7235); the key prefix is not.
  return match?.[1]?.startsWith(KEY_PREFIX) ? match[1] : undefined;
}
