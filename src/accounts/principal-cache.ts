// A bounded cache of authenticated principals, keyed by the SHA-256 of the key (hex).
//
// Why: authentication is one query per request, and on reads it is half of the database work.
// How it stays right with many instances: every change to a key, its minter or its organization,
// made anywhere, reaches every instance within a second (auth-invalidation.ts clears the cache on
// PostgreSQL's NOTIFY, and the cache serves nothing while that channel is not known to be live).
// `ttlMs` (AUTH_CACHE_SECONDS) only bounds how long one entry lives. Unknown keys are never cached,
// so a newly minted key works immediately and probing cannot fill the cache.
import type { KeyPrincipal } from './auth-repository.js';

export interface PrincipalCache {
  /** The cached principal, unless absent, expired, or the cache cannot vouch for freshness now. */
  get(keyDigest: string, nowMs: number): KeyPrincipal | undefined;
  /** The generation to pass to `set` for a principal about to be read from the database. */
  readonly generation: number;
  /** Caches `principal` read at `generation`; ignored if the cache was cleared since (the read may be stale). */
  set(keyDigest: string, principal: KeyPrincipal, nowMs: number, generation: number): void;
  clear(): void;
  readonly size: number;
}

export function principalCache(ttlMs: number, options: { maxEntries?: number; isFresh?: () => boolean } = {}): PrincipalCache {
  const { maxEntries = 10_000, isFresh = () => true } = options;
  const entries = new Map<string, { principal: KeyPrincipal; expiresAt: number }>();
  let generation = 0;
  return {
    get(keyDigest, nowMs) {
      if (ttlMs <= 0 || entries.size === 0 || !isFresh()) return undefined;
      const entry = entries.get(keyDigest);
      if (!entry) return undefined;
      if (entry.expiresAt <= nowMs) {
        entries.delete(keyDigest);
        return undefined;
      }
      return entry.principal;
    },
    get generation() {
      return generation;
    },
    set(keyDigest, principal, nowMs, readAt) {
      // A change notified while the row was being read may not be in what was read: do not keep it.
      if (ttlMs <= 0 || readAt !== generation || !isFresh()) return;
      // Bounded: the oldest entry (Map keeps insertion order) makes room for the newest.
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(keyDigest, { principal, expiresAt: nowMs + ttlMs });
    },
    clear() {
      generation += 1;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
