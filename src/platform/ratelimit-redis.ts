/** The shared limiter of nodes given REDIS_URL (see ratelimit.ts); other nodes never load the Redis client. */
import { Redis } from 'ioredis';
import { LIMITS } from './limits.ts';
import { MemoryRateLimiter, windowAt, type RateDecision, type RateLimiter } from './ratelimit.ts';

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
