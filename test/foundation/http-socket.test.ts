// Behaviour that lives in the socket layer, so over real HTTP (app.listen on port 0): the 413 of an
// oversized body reaches the client instead of a connection reset, and the refusals Node's HTTP
// parser and deadlines make (400, 408, 431) come in the contract's shape with an x-request-id.
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';

const MAX_JSON_BYTES = 256 * 1024;

let t: TestApp;
let base: string;
let port: number;
beforeAll(async () => {
  t = await createTestApp({
    env: { MAX_JSON_BYTES: String(MAX_JSON_BYTES), HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '2' },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await t.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

/** Sends raw bytes (in pieces, with pauses between them) and answers everything the server wrote before it closed. */
function rawExchange(pieces: (string | number)[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
    socket.on('connect', async () => {
      for (const piece of pieces) {
        if (typeof piece === 'number') await new Promise((r) => setTimeout(r, piece));
        else if (!socket.destroyed) socket.write(piece);
      }
    });
  });
}

function parseResponse(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

/**
 * Sends `tries` oversized bodies with Node's fetch from a worker thread: a client on the server's own
 * event loop writes only when the server lets it, and never meets the reset a real client meets.
 */
function oversizedPosts(tries: number, options: { bytes: number; streamed: boolean }): Promise<string[]> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { url, headers, tries, bytes, streamed } = workerData;
    const text = JSON.stringify({ name: 'x'.repeat(bytes) });
    const bodyOf = () => streamed
      ? { body: new Blob([text]).stream(), duplex: 'half' }
      : { body: text };
    (async () => {
      const outcomes = [];
      for (let i = 0; i < tries; i++) {
        try {
          const res = await fetch(url, { method: 'POST', headers: { ...headers, 'x-request-id': 'big-' + i }, ...bodyOf() });
          const body = await res.json();
          outcomes.push(res.status + ' ' + body.detail.error_code + ' ' + res.headers.get('x-request-id'));
        } catch (err) {
          outcomes.push('failed: ' + ((err.cause && err.cause.code) || err.message));
        }
      }
      parentPort.postMessage(outcomes);
    })();
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, {
      eval: true,
      workerData: { url: `${base}/admin/v1/organizations`, headers: admin, tries, ...options },
    });
    worker.once('message', (outcomes: string[]) => {
      resolve(outcomes);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('an oversized JSON body', () => {
  // Well past the limit and the sockets' buffers: the client is still writing when the 413 is ready.
  const bytes = 40 * MAX_JSON_BYTES;

  it('answers 413 to every one of 60 tries with a declared length, never a connection reset', async () => {
    const outcomes = await oversizedPosts(60, { bytes, streamed: false });
    expect(outcomes).toEqual(Array.from({ length: 60 }, (_, i) => `413 payload_too_large big-${i}`));
  });

  it('answers 413 to every one of 30 tries streamed without a length', async () => {
    const outcomes = await oversizedPosts(30, { bytes, streamed: true });
    expect(outcomes).toEqual(Array.from({ length: 30 }, (_, i) => `413 payload_too_large big-${i}`));
  });
});

describe('refusals by the HTTP layer', () => {
  it('answers headers that never finish with 408 request_timeout in the contract shape', async () => {
    const res = parseResponse(await rawExchange(['GET /healthz HTTP/1.1\r\nHost: x\r\n', 3000]));
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ detail: { error_code: 'request_timeout', message: expect.any(String) } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers a body that stops arriving with 408, naming the caller request id', async () => {
    const head =
      'POST /admin/v1/organizations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${ADMIN_TOKEN}\r\nX-Request-Id: slow-body-1\r\nContent-Length: 100\r\n\r\n`;
    const res = parseResponse(await rawExchange([head, '{"name": "slo', 4000]));
    expect(res.status).toBe(408);
    expect(res.body.detail.error_code).toBe('request_timeout');
    expect(res.headers['x-request-id']).toBe('slow-body-1');
  });

  it('answers headers over the size limit with 431 in the contract shape', async () => {
    const res = parseResponse(await rawExchange([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]));
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ detail: { error_code: 'request_header_fields_too_large', message: expect.any(String) } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers bytes that are not HTTP with 400 bad_request in the contract shape', async () => {
    const res = parseResponse(await rawExchange(['NOT HTTP AT ALL\r\n\r\n']));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: { error_code: 'bad_request', message: expect.any(String) } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers the QUERY method on a known path with 405 and on an unknown path with 404', async () => {
    const known = await fetch(`${base}/healthz`, { method: 'QUERY', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(known.status).toBe(405);
    expect(await known.json()).toEqual({ detail: 'Method Not Allowed' });
    expect(known.headers.get('allow')).toBe('GET, HEAD');
    const unknown = await fetch(`${base}/nowhere`, { method: 'QUERY' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toEqual(expect.any(String));
  });
});
