// Fixed one-minute windows counted per bucket key: in process memory by default, in Redis when
// REDIS_URL is set so that every instance spends from the same budget.
import { Redis } from 'ioredis';

export interface RateLimitResult {
  /** Requests counted in this window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimitStore {
  /** Counts one hit against `key` in a window of `windowMs` and reports the window's total. */
  hit(key: string, windowMs: number): Promise<RateLimitResult>;
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
    async hit(key, windowMs) {
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

export function redisRateLimitStore(url: string, prefix = 'rl:'): RateLimitStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', () => {
    // Connection errors surface on the commands that fail; the client reconnects by itself.
  });
  redis.defineCommand('rlHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as Redis & { rlHit(key: string, windowMs: number): Promise<[number, number]> };
  return {
    async hit(key, windowMs) {
      const [count, ttl] = await client.rlHit(prefix + key, windowMs);
      return { count, resetMs: ttl };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
