/**
 * Fixed windows per key (one second for the request limits, longer for failed logins). In memory for one
 * node; in Redis when REDIS_URL is set, so a limit holds across nodes (INCR on a per-window key is atomic;
 * the key expires after its window). Windows use wall time, not the sandbox clock: moving time must not
 * refill anyone's budget.
 *
 * Redis is a helper, never a dependency of a payment: while it is out of reach every node limits on its
 * own (each admitting its share, `RedisRateLimiter`), says so once a minute in the log and in `/health`, and
 * returns to Redis by itself once it answers again (ratelimit-redis.ts, loaded only by a node given REDIS_URL).
 */
import { LIMITS } from './limits.ts';

export interface RateDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one event against `key` and says whether it is within `limit` per window. */
  hit(key: string, limit: number, windowSeconds?: number): Promise<RateDecision>;
  /** Whether one more event would be within `limit`, without counting it. */
  peek(key: string, limit: number, windowSeconds?: number): Promise<RateDecision>;
  /** True while the shared store is out of reach and this node limits on its own. */
  readonly degraded: boolean;
  close(): Promise<void>;
}

interface Window {
  index: number;
  count: number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  readonly degraded = false;
  constructor(private readonly wallMs: () => number = Date.now) {}

  async hit(key: string, limit: number, windowSeconds = 1): Promise<RateDecision> {
    const { index, retryAfterSeconds } = windowAt(this.wallMs(), windowSeconds);
    const mapKey = `${windowSeconds}:${key}`;
    const current = this.windows.get(mapKey);
    const count = current?.index === index ? current.count + 1 : 1;
    if (!current && this.windows.size >= LIMITS.rateLimitMemoryKeysMax) this.dropPastWindows();
    this.windows.set(mapKey, { index, count });
    return { allowed: count <= limit, retryAfterSeconds };
  }

  async peek(key: string, limit: number, windowSeconds = 1): Promise<RateDecision> {
    const { index, retryAfterSeconds } = windowAt(this.wallMs(), windowSeconds);
    const current = this.windows.get(`${windowSeconds}:${key}`);
    const count = current?.index === index ? current.count : 0;
    return { allowed: count < limit, retryAfterSeconds };
  }

  /** Bounds memory: only windows still open matter. */
  private dropPastWindows(): void {
    const nowMs = this.wallMs();
    for (const [mapKey, window] of this.windows) {
      const windowSeconds = Number(mapKey.slice(0, mapKey.indexOf(':')));
      if (window.index !== windowAt(nowMs, windowSeconds).index) this.windows.delete(mapKey);
    }
  }

  async close(): Promise<void> {}
}

export function windowAt(nowMs: number, windowSeconds: number): { index: number; retryAfterSeconds: number } {
  const windowMs = windowSeconds * 1000;
  const index = Math.floor(nowMs / windowMs);
  return { index, retryAfterSeconds: Math.max(1, Math.ceil(((index + 1) * windowMs - nowMs) / 1000)) };
}
