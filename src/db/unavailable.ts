// Which database errors mean "PostgreSQL is unreachable or gave up on us" rather than "this request
// is wrong": those become a 503 with Retry-After (src/http/outages.ts), never a 500 with a stack.

/** Network failures of the socket to PostgreSQL (Node error codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs of an outage: class 08 (connection exception), the server shutting down or starting
 * (57P01-57P03), too many connections (53300), idle_in_transaction_session_timeout (25P03).
 */
const OUTAGE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25P03']);
/** statement_timeout cancelled one statement: that request's problem, not an outage. */
const STATEMENT_TIMEOUT = '57014';

/** What pg and pg-pool throw when a connection dies, never opens, or a deadline passes. */
const OUTAGE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|is not queryable|Connection ended|terminating connection/i;

export type DatabaseFailure = 'unreachable' | 'statement_timeout';

/** Whether `err` (or one of its causes) says PostgreSQL is unreachable, or cut a statement short at its deadline. */
export function databaseFailure(err: unknown): DatabaseFailure | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === STATEMENT_TIMEOUT) return 'statement_timeout';
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || OUTAGE_STATES.has(code) || code.startsWith('08'))) return 'unreachable';
    if (typeof message === 'string' && OUTAGE_MESSAGES.test(message)) return 'unreachable';
  }
  return undefined;
}

export const isDatabaseUnavailable = (err: unknown) => databaseFailure(err) === 'unreachable';
