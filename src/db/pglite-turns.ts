// PGlite, as node-postgres' adapter sees it, with every statement started on a later turn of the
// event loop.
//
// PGlite runs each protocol message synchronously and answers it with a promise, so node-postgres'
// adapter chains statement after statement in microtasks: one turn of the event loop ran every
// statement queued on the pool, and with 50 requests waiting a turn lasted 130–190 ms. Since libuv
// 1.45 (Node 20) a listening socket accepts one connection per turn, so new connections waited in
// the kernel's accept queue for turn after turn: at the start of a PATCH storm on 50 fresh
// connections the last one got its first answer after 4.2 s (p99 1.8–2.7 s, p50 135 ms). Starting
// each statement from setImmediate bounds a turn to about one statement: accepts, reads and timers
// run between statements instead of after the whole queue. It costs 2–8 µs of CPU per statement
// (bench/pglite-turns.ts: 82.6 against 90.5 µs per primary-key read, medians of 7 runs each).
import type { PGlite } from '@electric-sql/pglite';

// The first byte of a frontend message: Parse starts an extended-protocol statement (pg sends
// Parse, Bind, Describe, Execute, Sync for each one), Query a simple-protocol one. Yielding only
// there keeps the messages of one statement in one turn.
const PARSE = 0x50; // 'P'
const QUERY = 0x51; // 'Q'

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What node-postgres' PGlite adapter uses of a PGlite: `waitReady` and `execProtocolStream`. */
export function pgliteYieldingBetweenStatements(pglite: PGlite): PGlite {
  const turns: Pick<PGlite, 'waitReady' | 'execProtocolStream'> = {
    waitReady: pglite.waitReady,
    execProtocolStream: async (message, options) => {
      if (message[0] === PARSE || message[0] === QUERY) await nextTurn();
      return pglite.execProtocolStream(message, options);
    },
  };
  return turns as PGlite;
}
