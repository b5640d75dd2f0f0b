// The retrying transport under every call: one Idempotency-Key per POST call kept across its
// retries, a per-attempt timeout, full-jitter exponential backoff that yields to the server's
// Retry-After / RateLimit, and a total time budget it never sleeps past. README.md of the package
// states the policy; this file is its one implementation.
import { NetworkError, TimeoutError } from './errors.js';

/** What the SDK needs of fetch: `globalThis.fetch` fits, so does any wrapper of it. */
export type FetchLike = (input: Request) => Promise<Response>;

export interface RetryPolicy {
  /** Retries after the first attempt (0 disables retrying). */
  maxRetries: number;
  /** Deadline of one attempt, answer body included. */
  timeoutMs: number;
  /** Deadline of the whole call, retries and waits included: no wait is started that would end past it. */
  totalBudgetMs: number;
  /** First backoff step; attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^n)]. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_POLICY: RetryPolicy = { maxRetries: 4, timeoutMs: 30_000, totalBudgetMs: 90_000, baseDelayMs: 250, maxDelayMs: 8_000 };

/** Per-call options, accepted as the last argument of every resource method. */
export interface CallOptions {
  /** Cancels the call, retries and waits included. */
  signal?: AbortSignal;
  /** POST only: the Idempotency-Key to send (default: a random UUID per call, the same on each retry). */
  idempotencyKey?: string;
  timeoutMs?: number;
  totalBudgetMs?: number;
  maxRetries?: number;
}

export interface TransportDeps {
  fetch: FetchLike;
  policy: RetryPolicy;
  /** Injected for tests; default Math.random and a timer. */
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

export type Transport = (request: Request, call?: CallOptions) => Promise<Response>;

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Milliseconds the answer asks to wait: Retry-After (seconds or HTTP date); for a 429 without it, the
 * RateLimit header's `t=`, else RateLimit-Reset. (Other answers carry the rate-limit window too, but
 * its reset says nothing about when a 502 or 503 will be over.)
 */
export function serverDelayMs(response: Pick<Response, 'status' | 'headers'>, now = Date.now()): number | undefined {
  const { headers } = response;
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    if (/^\s*\d+\s*$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (response.status !== 429) return undefined;
  const rateLimit = headers.get('ratelimit');
  const t = rateLimit ? /(?:^|[;,\s])t=(\d+)/.exec(rateLimit) : null;
  if (t) return Number(t[1]) * 1000;
  const reset = headers.get('ratelimit-reset');
  if (reset !== null && /^\s*\d+\s*$/.test(reset)) return Number(reset) * 1000;
  return undefined;
}

type Outcome = { response: Response; failure?: undefined } | { response?: undefined; failure: NetworkError };

/**
 * Whether repeating the request after an answer-less failure (or a 502 / 504, where the request may
 * or may not have run) is safe. GET and HEAD read; a POST carries an Idempotency-Key, so the service
 * replays the first answer; PATCH bodies set absolute values, so a repeat converges on the same
 * record (with If-Match, a repeat after a lost success answers 412); DELETE ends with the record
 * gone either way (see the 404 rule below). Anything else only with an Idempotency-Key.
 */
function safeToRepeat(request: Request): boolean {
  return ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'].includes(request.method) || request.headers.has('idempotency-key');
}

/** 429, 503 and 409 `idempotency_key_in_use` are refusals before any work: retried for every method. */
async function retryableAnswer(request: Request, response: Response, body: ArrayBuffer): Promise<boolean> {
  switch (response.status) {
    case 429:
    case 503:
      return true;
    case 502:
    case 504:
      return safeToRepeat(request);
    case 409:
      if (!request.headers.has('idempotency-key')) return false;
      try {
        const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
        return (
          typeof parsed === 'object' &&
          parsed !== null &&
          'detail' in parsed &&
          JSON.stringify(parsed.detail).includes('"idempotency_key_in_use"')
        );
      } catch {
        return false;
      }
    default:
      return false;
  }
}

/** `fetch failed (ECONNREFUSED)`: undici hides the reason in `cause`. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  return code ? `${err.message} (${code})` : err.message;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function createTransport(deps: TransportDeps): Transport {
  const random = deps.random ?? Math.random;
  const sleep = deps.sleep ?? abortableSleep;

  return async function send(original: Request, call: CallOptions = {}): Promise<Response> {
    const policy: RetryPolicy = {
      ...deps.policy,
      ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
      ...(call.totalBudgetMs === undefined ? {} : { totalBudgetMs: call.totalBudgetMs }),
      ...(call.maxRetries === undefined ? {} : { maxRetries: call.maxRetries }),
    };
    const deadline = Date.now() + policy.totalBudgetMs;
    const callerSignals = [original.signal, ...(call.signal ? [call.signal] : [])];
    const callerSignal = AbortSignal.any(callerSignals);

    // One key for the call, chosen before the first attempt: every retry replays the same request.
    const headers = new Headers(original.headers);
    if (original.method === 'POST' && !headers.has('idempotency-key')) {
      headers.set('idempotency-key', call.idempotencyKey ?? globalThis.crypto.randomUUID());
    }
    const template = new Request(original, { headers });

    let ambiguousBefore = false;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), Math.max(1, Math.min(policy.timeoutMs, remaining)));
      let outcome: Outcome;
      let body: ArrayBuffer | undefined;
      // The attempt's signal is held here until the attempt ends, and the attempt also races it: a
      // signal from AbortSignal.any() is only weakly held by its sources, and once collected its abort
      // never reaches fetch (seen on Node 24 under GC pressure: an attempt that outlived its timeout).
      const attemptSignal = AbortSignal.any([callerSignal, timeout.signal]);
      const abandoned = new Promise<never>((_resolve, reject) => {
        const abandon = () => reject(attemptSignal.reason);
        if (attemptSignal.aborted) abandon();
        else attemptSignal.addEventListener('abort', abandon, { once: true });
      });
      abandoned.catch(() => {}); // observed below; never an unhandled rejection
      try {
        const response = await Promise.race([deps.fetch(new Request(template.clone(), { signal: attemptSignal })), abandoned]);
        // The body is read inside the attempt, so that its deadline covers it and a connection cut
        // mid-body is retried like any other network failure.
        body = await Promise.race([response.arrayBuffer(), abandoned]);
        const replay = new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
        outcome = { response: replay };
      } catch (err) {
        if (callerSignal.aborted) throw callerSignal.reason;
        outcome = timeout.signal.aborted || attemptSignal.aborted
          ? { failure: new TimeoutError(`${original.method} ${original.url}: no answer within ${policy.timeoutMs} ms`, { cause: err }) }
          : { failure: new NetworkError(`${original.method} ${original.url}: ${describe(err)}`, { cause: err }) };
      } finally {
        clearTimeout(timer);
      }

      const { response, failure } = outcome;
      if (response) {
        // A DELETE repeated after an attempt whose outcome is unknown: 404 means it is gone, as asked.
        if (response.status === 404 && ambiguousBefore && original.method === 'DELETE') {
          const headers = new Headers(response.headers);
          for (const name of ['content-type', 'content-length']) headers.delete(name);
          return new Response(null, { status: 204, headers });
        }
        if (!(await retryableAnswer(template, response, body ?? new ArrayBuffer(0)))) return response;
      } else if (!safeToRepeat(template)) {
        throw failure;
      }
      if (!response || response.status === 502 || response.status === 504) ambiguousBefore = true;

      const giveUp = () => {
        if (response) return response;
        throw failure;
      };
      if (attempt >= policy.maxRetries) return giveUp();
      const backoff = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      const asked = response ? serverDelayMs(response) : undefined;
      // The server's wait wins (plus a little jitter so that clients told the same second spread out).
      const delay = asked === undefined ? backoff : asked + random() * Math.min(250, policy.baseDelayMs);
      if (Date.now() + delay >= deadline) return giveUp();
      await sleep(delay, callerSignal);
    }
  };
}
