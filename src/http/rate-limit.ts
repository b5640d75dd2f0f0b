// Fixed one-minute windows counted per bucket key: in process memory by default, in Redis when
// REDIS_URL is set so that every instance spends from the same budget.
import { Redis } from 'ioredis';
import type { DependencyHealth } from '../observability/dependencies.js';

export interface RateLimitResult {
  /** Requests counted in this window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimitStore {
  /**
   * Counts one hit against `key` in a window of `windowMs` and reports the window's total: at once
   * when the count lives in this process (no promise on the hot path), else a promise.
   */
  hit(key: string, windowMs: number): RateLimitResult | Promise<RateLimitResult>;
  /** Resolves once a shared store is connected, or its deadline passed (start-up waits for it). */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

export function memoryRateLimitStore(now: () => number = Date.now): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  // Expired windows are swept so that a flood of distinct keys cannot grow the map for ever.
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, w] of windows) if (w.resetAt <= t) windows.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    hit(key, windowMs) {
      const t = now();
      let w = windows.get(key);
      if (!w || w.resetAt <= t) {
        w = { count: 0, resetAt: t + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, resetMs: w.resetAt - t };
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

// INCR and the first PEXPIRE in one atomic step: a window can never be left without an expiry.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

export interface RedisLimiterOptions {
  /** Prefix of every bucket key (tests isolate themselves with it). */
  prefix?: string;
  /** Connect and command deadline. */
  timeoutMs?: number;
  /** Told when Redis fails and when it answers again. */
  health?: Pick<DependencyHealth, 'down' | 'up'>;
  /** Counts while Redis is unavailable; by default this instance's memory. */
  fallback?: RateLimitStore;
}

/** After a failure, Redis is not asked again for this long: requests count locally without waiting. */
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * Shared windows in Redis. When Redis is down or silent the limiter fails open to a per-instance
 * window of the same size (so a partner's budget is, for the outage, per instance rather than
 * shared) instead of refusing requests or making them wait: no offline queue, a command deadline,
 * and a short pause after each failure during which requests do not even try.
 */
export function redisRateLimitStore(url: string, options: RedisLimiterOptions = {}): RateLimitStore {
  const { prefix = 'rl:', timeoutMs = 500, health } = options;
  const fallback = options.fallback ?? memoryRateLimitStore();
  const redis = new Redis(url, {
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    keepAlive: 5000,
  });
  redis.on('error', (err) => health?.down('redis', err));
  redis.defineCommand('rlHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as Redis & { rlHit(key: string, windowMs: number): Promise<[number, number]> };
  let pausedUntil = 0;
  redis.on('ready', () => {
    pausedUntil = 0;
    health?.up('redis');
  });

  return {
    async hit(key, windowMs) {
      if (redis.status !== 'ready' || Date.now() < pausedUntil) return fallback.hit(key, windowMs);
      try {
        const [count, ttl] = await client.rlHit(prefix + key, windowMs);
        return { count, resetMs: ttl };
      } catch (err) {
        health?.down('redis', err);
        pausedUntil = Date.now() + RETRY_AFTER_FAILURE_MS;
        // A command that timed out on an open socket (packets dropped) says the socket is dead even
        // though it never errored: reconnect, so that recovery is noticed by a fresh connection.
        if (err instanceof Error && /timed? ?out/i.test(err.message)) redis.disconnect(true);
        return fallback.hit(key, windowMs);
      }
    },
    async ready() {
      if (redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(timeoutMs, 1000));
        redis.once('ready', done);
      });
    },
    async close() {
      await fallback.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
