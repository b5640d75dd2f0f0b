// The retry policy's arithmetic, without a service: how long an answer asks to wait, the backoff
// bounds, and which failures are repeated for which method.
import { createClient, type FetchLike, NetworkError } from '@aviation-marketplace/partner-sdk';
import { describe, expect, test } from 'vitest';
import { createTransport, DEFAULT_POLICY, serverDelayMs } from '../../packages/sdk/src/transport.js';

const answer = (status: number, headers: Record<string, string>) => ({ status, headers: new Headers(headers) });

describe('serverDelayMs', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  test('Retry-After in seconds or as an HTTP date', () => {
    expect(serverDelayMs(answer(429, { 'retry-after': '7' }), now)).toBe(7_000);
    expect(serverDelayMs(answer(503, { 'retry-after': 'Sun, 22 Nov 2026 12:00:03 GMT' }), now)).toBe(3_000);
    expect(serverDelayMs(answer(503, { 'retry-after': 'Sun, 22 Nov 2026 11:00:00 GMT' }), now)).toBe(0);
  });
  test("a 429 without Retry-After: the RateLimit header's t=, else RateLimit-Reset", () => {
    expect(serverDelayMs(answer(429, { ratelimit: '"minute";r=0;t=12' }), now)).toBe(12_000);
    expect(serverDelayMs(answer(429, { 'ratelimit-reset': '9' }), now)).toBe(9_000);
    expect(serverDelayMs(answer(429, {}), now)).toBeUndefined();
  });
  test('other answers: only Retry-After counts', () => {
    expect(serverDelayMs(answer(503, { ratelimit: '"minute";r=100;t=50' }), now)).toBeUndefined();
  });
});

/** A transport over a scripted fetch, with the waits recorded instead of slept. */
function scripted(script: (request: Request, attempt: number) => Response | Error, random = () => 1) {
  const waits: number[] = [];
  const seen: Request[] = [];
  const fetch: FetchLike = async (request) => {
    seen.push(request);
    const next = script(request, seen.length - 1);
    if (next instanceof Error) throw next;
    return next;
  };
  const send = createTransport({ fetch, policy: { ...DEFAULT_POLICY, maxRetries: 3 }, random, sleep: async (ms) => void waits.push(ms) });
  return { send, waits, seen };
}

describe('retry decisions', () => {
  test('full-jitter backoff: attempt n waits at most min(maxDelay, base * 2^n)', async () => {
    const { send, waits } = scripted(() => new TypeError('fetch failed'));
    await expect(send(new Request('http://x.test/a'))).rejects.toBeInstanceOf(NetworkError);
    expect(waits).toEqual([250, 500, 1_000]);
    const half = scripted(
      () => new TypeError('fetch failed'),
      () => 0.5,
    );
    await expect(half.send(new Request('http://x.test/a'))).rejects.toBeInstanceOf(NetworkError);
    expect(half.waits).toEqual([125, 250, 500]);
  });

  test('every POST gets one Idempotency-Key for all its attempts; a caller header wins', async () => {
    const { send, seen } = scripted((_r, attempt) =>
      attempt < 2 ? new Response(null, { status: 502 }) : new Response('{}', { status: 201 }),
    );
    await send(new Request('http://x.test/a', { method: 'POST', body: '{}' }));
    const keys = seen.map((r) => r.headers.get('idempotency-key'));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const own = scripted(() => new Response('{}', { status: 201 }));
    await own.send(new Request('http://x.test/a', { method: 'POST', body: '{}', headers: { 'idempotency-key': 'mine' } }));
    await own.send(new Request('http://x.test/a', { method: 'POST', body: '{}' }), { idempotencyKey: 'given' });
    expect(own.seen.map((r) => r.headers.get('idempotency-key'))).toEqual(['mine', 'given']);
    expect(await own.seen[0]?.text()).toBe('{}');
  });

  test('a 409 other than idempotency_key_in_use, a 500 and a 4xx are returned at once', async () => {
    for (const response of [
      () => Response.json({ detail: { error_code: 'conflict', message: 'x' } }, { status: 409 }),
      () => new Response('oops', { status: 500 }),
      () => new Response('{}', { status: 400 }),
    ]) {
      const { send, seen } = scripted(response);
      const got = await send(new Request('http://x.test/a', { method: 'POST', body: '{}' }));
      expect([got.status, seen.length]).toEqual([response().status, 1]);
    }
  });

  test('a DELETE retried after a lost answer that finds the record gone reports 204; a first 404 stays 404', async () => {
    const lost = scripted((_r, attempt) =>
      attempt === 0 ? new TypeError('fetch failed') : new Response('{"detail":"Teardown not found"}', { status: 404 }),
    );
    expect((await lost.send(new Request('http://x.test/a', { method: 'DELETE' }))).status).toBe(204);
    const plain = scripted(() => new Response('{"detail":"Teardown not found"}', { status: 404 }));
    expect((await plain.send(new Request('http://x.test/a', { method: 'DELETE' }))).status).toBe(404);
  });

  test('maxRetries 0 on the client: one attempt', async () => {
    let calls = 0;
    const client = createClient({
      baseUrl: 'http://x.test/public/v1/',
      apiKey: 'svc_live_x',
      organizationId: '11111111-1111-4111-8111-111111111111',
      maxRetries: 0,
      fetch: async (request) => {
        calls++;
        expect(request.url).toBe('http://x.test/public/v1/teardowns?sort_by=created_at&sort_dir=desc&page=1&per_page=20');
        expect(request.headers.get('authorization')).toBe('Bearer svc_live_x');
        expect(request.headers.get('x-organization-id')).toBe('11111111-1111-4111-8111-111111111111');
        throw new TypeError('fetch failed');
      },
    });
    await expect(client.teardowns.listPage()).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toBe(1);
  });
});
