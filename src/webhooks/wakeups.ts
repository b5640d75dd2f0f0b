// PostgreSQL only: wakes the delivery worker the moment events commit for an organization that has
// an enabled endpoint (migration 0009's trigger NOTIFYs `events_appended`), so delivery starts in
// milliseconds rather than at the next poll. Polling stays the safety net: a lost notification, or
// a lost connection, only delays delivery to the next poll (WEBHOOK_POLL_MS).
//
// Its own connection, as the auth change listener (accounts/auth-invalidation.ts): a heartbeat with
// a deadline notices a connection that went silent, and the loop reconnects with backoff.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

export const EVENTS_CHANNEL = 'events_appended';

export interface WakeupListener {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function wakeupListener(options: {
  url: string;
  connectTimeoutMs: number;
  onWake: () => void;
  log: FastifyBaseLogger;
  heartbeatMs?: number;
}): WakeupListener {
  const { url, connectTimeoutMs, onWake, log, heartbeatMs = 5000 } = options;
  let client: pg.Client | undefined;
  let stopped = false;
  let loop: Promise<void> | undefined;
  const abort = new AbortController();

  function drop(c: pg.Client) {
    (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async function session(onListening: () => void) {
    const c = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: Math.max(1000, connectTimeoutMs),
      keepAlive: true,
      application_name: 'partner-api-webhook-wakeups',
    });
    c.on('error', () => {}); // reported by the failing query below
    c.on('notification', () => onWake());
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${EVENTS_CHANNEL}`);
      onListening();
      // Whatever committed while nobody listened: look now.
      onWake();
      while (!stopped) {
        await sleep(heartbeatMs, undefined, { signal: abort.signal });
        await c.query('SELECT 1');
      }
    } finally {
      client = undefined;
      drop(c);
    }
  }

  return {
    async start() {
      if (loop) return;
      let listening: () => void = () => {};
      const first = new Promise<void>((resolve) => {
        listening = resolve;
        setTimeout(resolve, connectTimeoutMs).unref();
      });
      loop = (async () => {
        let failures = 0;
        while (!stopped) {
          try {
            await session(() => {
              if (failures > 0) log.info('webhook wake-up listener reconnected');
              failures = 0;
              listening();
            });
          } catch (err) {
            if (stopped) break;
            failures += 1;
            if (failures === 1) {
              log.warn(
                { error: err instanceof Error ? err.message : String(err) },
                'webhook wake-up listener lost; delivering at each poll until it reconnects',
              );
            }
            await sleep(Math.min(5000, 100 * 2 ** Math.min(failures, 6)), undefined, { signal: abort.signal }).catch(() => {});
          }
        }
      })();
      await first;
    },
    async stop() {
      stopped = true;
      abort.abort();
      if (client) drop(client);
      await loop?.catch(() => {});
    },
  };
}
