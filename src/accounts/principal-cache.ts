// A short, bounded cache of authenticated principals, keyed by the SHA-256 of the key.
//
// Why: authentication is one query per request, and on reads it is half of the database work.
// What it costs: a change made elsewhere (another instance, the CLI, a direct SQL fix) to a key, its
// minter or its organization reaches this instance within `ttlMs`. Changes made through this
// instance's admin API clear the cache at once. Unknown keys are never cached, so a newly minted key
// works immediately and probing cannot fill the cache.
import type { KeyPrincipal } from './auth-repository.js';

export interface PrincipalCache {
  get(keyHash: Buffer, nowMs: number): KeyPrincipal | undefined;
  set(keyHash: Buffer, principal: KeyPrincipal, nowMs: number): void;
  clear(): void;
  readonly size: number;
}

export function principalCache(ttlMs: number, maxEntries = 10_000): PrincipalCache {
  const entries = new Map<string, { principal: KeyPrincipal; expiresAt: number }>();
  return {
    get(keyHash, nowMs) {
      if (ttlMs <= 0) return undefined;
      const id = keyHash.toString('hex');
      const entry = entries.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt <= nowMs) {
        entries.delete(id);
        return undefined;
      }
      return entry.principal;
    },
    set(keyHash, principal, nowMs) {
      if (ttlMs <= 0) return;
      // Bounded: the oldest entry (Map keeps insertion order) makes room for the newest.
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(keyHash.toString('hex'), { principal, expiresAt: nowMs + ttlMs });
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
