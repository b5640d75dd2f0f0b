// Keeps this instance's principal cache in step with every other instance. Migration 0004 makes
// PostgreSQL NOTIFY `auth_changed` whenever a key, a user or an organization changes in a way that
// matters to authentication, whoever commits it; this listener clears the cache when one arrives.
//
// A notification that never arrives must not go unnoticed: the listener runs a heartbeat on its
// own connection, and the cache serves entries only while the last heartbeat is under a second
// old (`isFresh`). A connection that drops, or goes silent, therefore turns the cache off within a
// second, and it comes back, emptied, once the listener has reconnected.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { DatabaseDeadlines } from '../db/database.js';
import type { PrincipalCache } from './principal-cache.js';

export const AUTH_CHANNEL = 'auth_changed';

export interface AuthChangeListenerOptions {
  url: string;
  deadlines: Pick<DatabaseDeadlines, 'connectTimeoutMs'>;
  /** Period of the heartbeat query on the listening connection. */
  heartbeatMs?: number;
  /** How old the last heartbeat may be for the cache to be trusted. */
  freshMs?: number;
  now?: () => number;
}

export interface AuthChangeListener {
  /** Whether every change committed more than a moment ago has reached this instance. */
  isFresh(): boolean;
  /** Starts listening; resolves once listening, or once the connect deadline passed (it keeps trying). */
  start(cache: PrincipalCache, log: FastifyBaseLogger): Promise<void>;
  /** Whether the listening connection is up (readiness reports it). */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export function authChangeListener(options: AuthChangeListenerOptions): AuthChangeListener {
  const { url, deadlines, heartbeatMs = 250, freshMs = 1000, now = Date.now } = options;
  let lastBeat = Number.NEGATIVE_INFINITY;
  let client: pg.Client | undefined;
  let stopped = false;
  let loop: Promise<void> | undefined;
  const abort = new AbortController();

  function drop(c: pg.Client) {
    // end() waits for the server, which may be the thing that is gone: destroy the socket instead.
    (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async function session(cache: PrincipalCache, onListening: () => void) {
    const c = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: deadlines.connectTimeoutMs,
      query_timeout: Math.max(heartbeatMs, freshMs / 2),
      keepAlive: true,
      application_name: 'partner-api-auth-listener',
    });
    c.on('error', () => {}); // reported by the failing query below
    c.on('notification', () => cache.clear());
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
      // Changes made while this instance was not listening are unknown: start from an empty cache.
      cache.clear();
      lastBeat = now();
      onListening();
      while (!stopped) {
        await sleep(heartbeatMs, undefined, { signal: abort.signal });
        await c.query('SELECT 1');
        lastBeat = now();
      }
    } finally {
      client = undefined;
      drop(c);
    }
  }

  return {
    isFresh: () => now() - lastBeat < freshMs,
    get connected() {
      return client !== undefined && now() - lastBeat < freshMs;
    },
    async start(cache, log) {
      if (loop) return;
      let listening: () => void = () => {};
      const firstListen = new Promise<void>((resolve) => {
        listening = resolve;
        setTimeout(resolve, deadlines.connectTimeoutMs).unref();
      });
      loop = (async () => {
        let failures = 0;
        while (!stopped) {
          try {
            await session(cache, () => {
              if (failures > 0) log.warn('auth change listener reconnected; key cache on again');
              failures = 0;
              listening();
            });
          } catch (err) {
            if (stopped) break;
            cache.clear();
            failures += 1;
            // One line when the channel is lost, not one per retry.
            if (failures === 1) {
              log.warn(
                { error: err instanceof Error ? err.message : String(err) },
                'auth change listener lost; key cache off until it reconnects',
              );
            }
            await sleep(Math.min(2000, 100 * 2 ** Math.min(failures, 5)), undefined, { signal: abort.signal }).catch(() => {});
          }
        }
      })();
      await firstListen;
    },
    async stop() {
      stopped = true;
      abort.abort();
      if (client) drop(client);
      await loop?.catch(() => {});
    },
  };
}
