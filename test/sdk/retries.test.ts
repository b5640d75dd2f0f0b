// The SDK's retry policy against the real service: the Idempotency-Key kept across a retry (the
// service replays, nothing is created twice), 429 waits out Retry-After, 503 / 409-in-progress are
// retried, the total budget and the per-attempt timeout hold, and refusals are not retried.
import { NetworkError, NotFound, RateLimited, ServiceUnavailable, TimeoutError, ValidationError } from '@aviation-marketplace/partner-sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { memoryRateLimitStore } from '../../src/http/rate-limit.js';
import { aircraft, businessAnswer, recordingFetch, type SdkHarness, startSdkHarness } from './harness.js';

let h: SdkHarness;
beforeAll(async () => {
  h = await startSdkHarness();
});
afterAll(() => h.close());

const countTeardowns = async (search: string) => (await h.client().teardowns.listPage({ search })).total;

describe('idempotency', () => {
  test('a create whose answer is lost is retried with the same key: replayed, one teardown', async () => {
    const { fetch, log } = recordingFetch(async (_request, _exchange, index, real) => {
      const response = await real();
      if (index === 0) {
        await response.arrayBuffer(); // the service committed; the answer never reaches the caller
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    });
    const created = await h.client({ fetch }).teardowns.create({ ...aircraft, msn: 'LOST-ANSWER' });

    expect(log.map((e) => e.error ?? e.status)).toEqual(['fetch failed: socket hang up', 201]);
    const keys = log.map((e) => e.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(log[1]?.responseHeaders?.get('idempotent-replayed')).toBe('true');
    expect(created.data.msn).toBe('LOST-ANSWER');
    expect(await countTeardowns('LOST-ANSWER')).toBe(1);
  });

  test('each call gets its own key; a key given by the caller wins and replays across calls', async () => {
    const { fetch, log } = recordingFetch();
    const client = h.client({ fetch });
    await client.teardowns.create({ ...aircraft, msn: 'KEYS-A' });
    await client.teardowns.create({ ...aircraft, msn: 'KEYS-B' });
    const first = await client.teardowns.create({ ...aircraft, msn: 'KEYS-C' }, { idempotencyKey: 'erp-sync-4711' });
    const again = await client.teardowns.create({ ...aircraft, msn: 'KEYS-C' }, { idempotencyKey: 'erp-sync-4711' });

    const keys = log.map((e) => e.headers.get('idempotency-key'));
    expect(new Set(keys.slice(0, 2)).size).toBe(2);
    expect(keys.slice(2)).toEqual(['erp-sync-4711', 'erp-sync-4711']);
    expect(again.data.teardown_id).toBe(first.data.teardown_id);
    expect(log[3]?.responseHeaders?.get('idempotent-replayed')).toBe('true');
    expect(await countTeardowns('KEYS-C')).toBe(1);
  });

  test('409 idempotency_key_in_use is retried after its Retry-After', async () => {
    const { fetch, log } = recordingFetch(async (_request, _exchange, index, real) =>
      index === 0 ? businessAnswer(409, 'idempotency_key_in_use', { 'retry-after': '0' }) : real(),
    );
    const created = await h.client({ fetch }).teardowns.create({ ...aircraft, msn: 'IN-USE' });
    expect(log.map((e) => e.status)).toEqual([409, 201]);
    expect(log[1]?.headers.get('idempotency-key')).toBe(log[0]?.headers.get('idempotency-key'));
    expect(created.data.msn).toBe('IN-USE');
  });

  test('a DELETE whose answer is lost: the retry finds the teardown gone (404) and reports success', async () => {
    const { data } = await h.client().teardowns.create(aircraft);
    const { fetch, log } = recordingFetch(async (_request, _exchange, index, real) => {
      const response = await real();
      if (index === 0) throw new TypeError('fetch failed');
      return response;
    });
    await h.client({ fetch }).teardowns.delete(data.teardown_id);
    expect(log.map((e) => e.error ?? e.status)).toEqual(['fetch failed', 404]);
    await expect(h.client().teardowns.get(data.teardown_id)).rejects.toBeInstanceOf(NotFound);
  });
});

describe('server refusals and outages', () => {
  test('503 is retried (Retry-After honoured), then the call succeeds', async () => {
    const { fetch, log } = recordingFetch(async (_request, _exchange, index, real) =>
      index < 2 ? businessAnswer(503, 'service_unavailable', { 'retry-after': '0' }) : real(),
    );
    const page = await h.client({ fetch }).teardowns.listPage();
    expect(log.map((e) => e.status)).toEqual([503, 503, 200]);
    expect(page.page).toBe(1);
  });

  test('502 and 504 from a proxy and a connection refused are retried with backoff', async () => {
    const { fetch, log } = recordingFetch(async (_request, _exchange, index, real) => {
      // The service's own 502 (storage_unavailable) carries the rate-limit window: not a reason to wait for its reset.
      if (index === 0) return businessAnswer(502, 'storage_unavailable', { ratelimit: '"minute";r=590;t=58', 'ratelimit-reset': '58' });
      if (index === 1) throw new TypeError('fetch failed: ECONNREFUSED');
      if (index === 2) return new Response('Gateway Timeout', { status: 504 });
      return real();
    });
    const started = Date.now();
    await h.client({ fetch }).teardowns.create(aircraft);
    expect(log.map((e) => e.error ?? e.status)).toEqual([502, 'fetch failed: ECONNREFUSED', 504, 201]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(new Set(log.map((e) => e.headers.get('idempotency-key'))).size).toBe(1);
  });

  test('the total budget is never exceeded: the last error is thrown instead of a wait past it', async () => {
    const { fetch, log } = recordingFetch(async () => businessAnswer(503, 'service_unavailable', { 'retry-after': '1' }));
    const started = Date.now();
    const err = await h
      .client({ fetch, totalBudgetMs: 2_500, maxRetries: 10 })
      .teardowns.listPage()
      .catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(ServiceUnavailable);
    expect((err as ServiceUnavailable).retryAfterSeconds).toBe(1);
    expect(elapsed).toBeLessThan(2_500);
    // Attempts 1 s (plus at most 250 ms of jitter) apart: two or three fit in 2.5 s, never a fourth.
    expect(log.length).toBeGreaterThanOrEqual(2);
    expect(log.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < log.length; i++) expect((log[i]?.at ?? 0) - (log[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);

    const failing = recordingFetch(async () => {
      throw new TypeError('fetch failed');
    });
    const networkStarted = Date.now();
    const networkErr = await h
      .client({ fetch: failing.fetch, totalBudgetMs: 1_000, maxRetries: 100 })
      .teardowns.get('00000000-0000-4000-8000-000000000000')
      .catch((e: unknown) => e);
    expect(networkErr).toBeInstanceOf(NetworkError);
    expect(Date.now() - networkStarted).toBeLessThan(1_000 + 200);
    expect(failing.log.length).toBeGreaterThan(1);
  });

  test('an attempt past timeoutMs is abandoned (TimeoutError) and retried', async () => {
    const { fetch, log } = recordingFetch(
      (request) =>
        new Promise<Response>((_resolve, reject) => {
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
        }),
    );
    const started = Date.now();
    const err = await h
      .client({ fetch, timeoutMs: 150, maxRetries: 2 })
      .teardowns.listPage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(log.length).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 150);
  });

  test('a refusal that retrying cannot fix (422) is thrown at once', async () => {
    const { fetch, log } = recordingFetch();
    const err = await h
      .client({ fetch })
      .teardowns.create({ ...aircraft, start_date: 'soon' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(log.length).toBe(1);
  });

  test('a caller abort stops the call, waits included', async () => {
    const { fetch, log } = recordingFetch(async () => businessAnswer(503, 'service_unavailable', { 'retry-after': '30' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 200);
    const started = Date.now();
    const err = await h
      .client({ fetch })
      .teardowns.listPage({}, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(String(err)).toMatch(/caller gave up/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(log.length).toBe(1);
  });
});

describe('429 against the real rate limiter', () => {
  let limited: SdkHarness;
  beforeAll(async () => {
    // Windows of one second instead of one minute, so that Retry-After is 1 s and the test short.
    const store = memoryRateLimitStore();
    limited = await startSdkHarness({
      env: { RATE_LIMIT_PER_MINUTE: '2' },
      limiter: { hit: (key) => store.hit(key, 1_000), close: () => store.close() },
    });
  });
  afterAll(() => limited.close());

  test('the third request in the window gets 429; the SDK waits Retry-After and succeeds', async () => {
    const { fetch, log } = recordingFetch();
    const client = limited.client({ fetch });
    // Requests back to back: the third in a window is refused, waited out, and sent again.
    for (let i = 0; i < 10 && !log.some((e) => e.status === 429); i++) await client.teardowns.listPage();
    const statuses = log.map((e) => e.status);
    const refused = statuses.indexOf(429);
    expect(refused).toBeGreaterThan(-1);
    expect(statuses.slice(refused)).toEqual([429, 200]);
    const answer = log[refused]?.responseHeaders;
    expect(answer?.get('retry-after')).toBe('1');
    expect(answer?.get('ratelimit')).toMatch(/t=1/);
    const waited = (log[refused + 1]?.at ?? 0) - (log[refused]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(1_000);
  });

  test('with a budget shorter than Retry-After the SDK does not wait: RateLimited at once', async () => {
    const client = limited.client({ totalBudgetMs: 500 });
    const started = Date.now();
    let err: unknown;
    for (let i = 0; i < 4 && !err; i++)
      err = await client.teardowns.listPage().then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfterSeconds).toBe(1);
    expect((err as RateLimited).errorCode).toBe('too_many_requests');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
