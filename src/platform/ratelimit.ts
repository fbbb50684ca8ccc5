/**
 * Fixed one-second windows per key. In memory for one node; in Redis when REDIS_URL is set, so the
 * limit holds across nodes (INCR on a per-second key is atomic; the key expires after its window).
 * Windows use wall time, not the sandbox clock: moving time must not refill anyone's budget.
 */
import { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  hit(key: string, limitPerSecond: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private second = 0;
  private counts = new Map<string, number>();
  constructor(private readonly wallMs: () => number = Date.now) {}

  async hit(key: string, limitPerSecond: number): Promise<RateDecision> {
    const second = Math.floor(this.wallMs() / 1000);
    if (second !== this.second) {
      // Only the current window matters, so dropping the map bounds memory to one second of keys.
      this.second = second;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return { allowed: count <= limitPerSecond, retryAfterSeconds: 1 };
  }

  async close(): Promise<void> {}
}

const REDIS_WINDOW_TTL_SECONDS = 2;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  constructor(
    url: string,
    private readonly wallMs: () => number = Date.now,
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  }

  async hit(key: string, limitPerSecond: number): Promise<RateDecision> {
    const windowKey = `pixd:rl:${key}:${Math.floor(this.wallMs() / 1000)}`;
    const result = await this.redis.multi().incr(windowKey).expire(windowKey, REDIS_WINDOW_TTL_SECONDS).exec();
    const count = Number(result?.[0]?.[1] ?? 0);
    return { allowed: count <= limitPerSecond, retryAfterSeconds: 1 };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
