/**
 * Fixed windows per key (one second for the request limits, longer for failed logins). In memory for one
 * node; in Redis when REDIS_URL is set, so a limit holds across nodes (INCR on a per-window key is atomic;
 * the key expires after its window). Windows use wall time, not the sandbox clock: moving time must not
 * refill anyone's budget.
 *
 * Redis is a helper, never a dependency of a payment: while it is out of reach every node limits on its
 * own (each admitting its share, `RedisRateLimiter`), says so once a minute in the log and in `/health`, and
 * returns to Redis by itself once it answers again.
 */
import { Redis } from 'ioredis';
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

function windowAt(nowMs: number, windowSeconds: number): { index: number; retryAfterSeconds: number } {
  const windowMs = windowSeconds * 1000;
  const index = Math.floor(nowMs / windowMs);
  return { index, retryAfterSeconds: Math.max(1, Math.ceil(((index + 1) * windowMs - nowMs) / 1000)) };
}

export interface RedisRateLimiterOptions {
  wallMs?: () => number;
  /** Nodes sharing the limits: while Redis is out of reach each node admits this share of a limit. */
  nodes?: number;
  /** Told when the shared store goes away and comes back; at most once a minute while it stays away. */
  onStoreChange?: (event: { degraded: boolean; error?: unknown }) => void;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private readonly wallMs: () => number;
  private readonly nodes: number;
  private lastWarnedMs = Number.NEGATIVE_INFINITY;
  private storeFailed = false;

  constructor(
    url: string,
    private readonly options: RedisRateLimiterOptions = {},
  ) {
    this.wallMs = options.wallMs ?? Date.now;
    this.nodes = Math.max(1, options.nodes ?? 1);
    this.fallback = new MemoryRateLimiter(this.wallMs);
    // No offline queue: while disconnected a command fails at once (and the node limits on its own)
    // instead of waiting for a reconnection that may not come. ioredis keeps reconnecting in the background.
    this.redis = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: LIMITS.redisConnectTimeoutMs,
      commandTimeout: LIMITS.redisCommandTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, LIMITS.redisReconnectMaxDelayMs),
    });
    this.redis.on('error', () => undefined); // surfaced per command, and through `degraded`
    this.redis.on('ready', () => this.storeUp());
  }

  /**
   * Resolves once connected, or after the connect timeout (the node then starts limiting on its own):
   * commands are not queued while disconnected, so a node waits for the first connection at start.
   */
  async connected(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, LIMITS.redisConnectTimeoutMs);
      this.redis.once('ready', done);
    });
  }

  get degraded(): boolean {
    return this.storeFailed || this.redis.status !== 'ready';
  }

  async hit(key: string, limit: number, windowSeconds = 1): Promise<RateDecision> {
    const { index, retryAfterSeconds } = windowAt(this.wallMs(), windowSeconds);
    const windowKey = `pixd:rl:${windowSeconds}:${key}:${index}`;
    try {
      const result = await this.redis
        .multi()
        .incr(windowKey)
        .expire(windowKey, windowSeconds + 1)
        .exec();
      const count = Number(result?.[0]?.[1] ?? 0);
      this.storeUp();
      return { allowed: count <= limit, retryAfterSeconds };
    } catch (error) {
      this.storeDown(error);
      return this.fallback.hit(key, this.share(limit), windowSeconds);
    }
  }

  async peek(key: string, limit: number, windowSeconds = 1): Promise<RateDecision> {
    const { index, retryAfterSeconds } = windowAt(this.wallMs(), windowSeconds);
    try {
      const count = Number((await this.redis.get(`pixd:rl:${windowSeconds}:${key}:${index}`)) ?? 0);
      this.storeUp();
      return { allowed: count < limit, retryAfterSeconds };
    } catch (error) {
      this.storeDown(error);
      return this.fallback.peek(key, this.share(limit), windowSeconds);
    }
  }

  private share(limit: number): number {
    return Math.max(1, Math.ceil(limit / this.nodes));
  }

  private storeUp(): void {
    if (!this.storeFailed) return;
    this.storeFailed = false;
    this.lastWarnedMs = Number.NEGATIVE_INFINITY;
    this.options.onStoreChange?.({ degraded: false });
  }

  private storeDown(error: unknown): void {
    this.storeFailed = true;
    const nowMs = Date.now();
    if (nowMs - this.lastWarnedMs < LIMITS.redisDownLogIntervalMs) return;
    this.lastWarnedMs = nowMs;
    this.options.onStoreChange?.({ degraded: true, error });
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
