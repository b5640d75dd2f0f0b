// Refusals made below Fastify, by Node's HTTP parser and its deadlines: a request that breaks
// HTTP (400), headers over the size limit (431), headers or a body too slow to arrive (408).
// Node would answer them in its own words; they get the contract's business shape and an
// x-request-id like every other answer (decisions.md section 9).
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { requestIdFrom } from './routing.js';

/**
 * The request id Fastify gave a raw request, so a refusal in mid-body names the same id as its log
 * lines. A property of the request rather than a WeakMap entry: one per request is measurable, and
 * weak entries cost the garbage collector more than a field does.
 */
const REQUEST_ID = Symbol('requestId');
type IdentifiedRequest = IncomingMessage & { [REQUEST_ID]?: string };

/** Fastify's genReqId: the caller's safe x-request-id or a fresh UUID, remembered for the raw request. */
export function generateRequestId(req: IncomingMessage): string {
  const id = requestIdFrom(req.headers['x-request-id'], randomUUID);
  (req as IdentifiedRequest)[REQUEST_ID] = id;
  return id;
}

/** Extra headers of every refusal written here; the security headers of the other answers too. */
const REFUSAL_HEADERS = 'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n';

/** Sockets already refused: the parser may report the same broken stream more than once. */
const refused = new WeakSet<Socket>();

/** How long a refused connection may keep sending before it is cut: long enough for the answer to be read. */
const LINGER_MS = 2000;

/** The answer to a refusal of Node's HTTP layer (also the OpenAPI document's example of each). */
export function refusalOf(err: { code?: string }, timeouts: { headersSeconds: number; requestSeconds: number }) {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        error_code: 'request_timeout',
        message: `The request did not arrive in time: headers are awaited ${timeouts.headersSeconds} s, the whole request ${timeouts.requestSeconds} s.`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error_code: 'request_header_fields_too_large',
        message: 'The request line and headers exceed the size limit (16 KB).',
      };
    default:
      return { status: 400, error_code: 'bad_request', message: 'The request is not valid HTTP/1.1.' };
  }
}

/** The raw request the socket is serving, when its headers were parsed already (a body that is too slow). */
function currentRequest(socket: Socket): IncomingMessage | undefined {
  const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  return res?.req;
}

/** Fastify's clientErrorHandler option. */
export function clientErrorHandler(timeouts: { headersSeconds: number; requestSeconds: number }) {
  return function onClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
    // A reset connection, or one already answered: nothing to say to anybody.
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed || refused.has(socket)) return;
    refused.add(socket);
    const refusal = refusalOf(err, timeouts);
    const req = currentRequest(socket);
    const id = (req as IdentifiedRequest | undefined)?.[REQUEST_ID] ?? requestIdFrom(req?.headers['x-request-id'], randomUUID);
    this.log.info({ reqId: id, code: err.code, status: refusal.status }, 'request refused by the HTTP layer');
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (res?.headersSent) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({ detail: { error_code: refusal.error_code, message: refusal.message } });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\n${REFUSAL_HEADERS}\r\n${body}`,
      );
    }
    // Half-close, then cut a little later: destroying at once, with the client's bytes unread,
    // answers a TCP reset that can wipe the refusal before the client reads it.
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
