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
 * (57P01-57P03), too many connections (53300), and our own deadlines: statement_timeout (57014) and
 * idle_in_transaction_session_timeout (25P03).
 */
const OUTAGE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25P03']);

/** What pg and pg-pool throw when a connection dies, never opens, or a deadline passes. */
const OUTAGE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|is not queryable|Connection ended|terminating connection/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || OUTAGE_STATES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && OUTAGE_MESSAGES.test(message)) return true;
  }
  return false;
}
