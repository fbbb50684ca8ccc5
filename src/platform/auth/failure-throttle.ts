/**
 * Guessing protection for a secret check (the token endpoints, the console's sign-in): failed attempts are
 * counted per identity (a client id, a console user), per source address, and per identity from a source, in
 * windows of wall time on the shared rate limiter (so a cluster with Redis counts them together).
 *
 * - An identity whose failures are spent is refused without its secret being checked, from every source: a
 *   guesser learns nothing from an answer while throttled. The caller may let through a request that proves
 *   it is the identity's owner some other way (the token endpoint: the application's own client certificate).
 * - A source whose failures are spent is refused without a check only for the identities that failed from it
 *   in the window. Another identity's secret is still checked there, and the right one passes: one client's
 *   failures do not lock out the others behind the same address (a NAT, a proxy, a sandbox's loopback). A
 *   guesser spraying identities from a spent source gets one checked guess per identity per window, each
 *   counted against that identity.
 *
 * Successes are not counted and reset nothing (docs/security.md).
 */
import type { RateDecision, RateLimiter } from '../ratelimit.ts';

export interface FailureBudget {
  perIdentity: number;
  perSource: number;
  windowSeconds: number;
}

export class FailureThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    /** Names this check's counters apart from other checks' on the same limiter. */
    private readonly name: string,
    private readonly budget: FailureBudget,
  ) {}

  private keys(identity: string, source: string) {
    return {
      identity: `${this.name}-failures:identity:${identity}`,
      source: `${this.name}-failures:source:${source}`,
      pair: `${this.name}-failures:pair:${source}:${identity}`,
    };
  }

  private peek(key: string, limit: number): Promise<RateDecision> {
    return this.limiter.peek(key, limit, this.budget.windowSeconds);
  }

  /** Seconds to wait before `identity` may be tried from `source` again; undefined: check the secret. */
  async wait(identity: string, source: string): Promise<number | undefined> {
    const keys = this.keys(identity, source);
    const [byIdentity, bySource] = await Promise.all([
      this.peek(keys.identity, this.budget.perIdentity),
      this.peek(keys.source, this.budget.perSource),
    ]);
    if (!byIdentity.allowed) return byIdentity.retryAfterSeconds;
    if (bySource.allowed) return undefined;
    // A limit of 1: allowed while this identity has no failure from this source in the window.
    const byPair = await this.peek(keys.pair, 1);
    return byPair.allowed ? undefined : bySource.retryAfterSeconds;
  }

  /** Counts a failed attempt; the seconds to wait when it spent a budget (then answer 429, not 401). */
  async failed(identity: string, source: string): Promise<number | undefined> {
    const keys = this.keys(identity, source);
    const window = this.budget.windowSeconds;
    const [byIdentity, bySource] = await Promise.all([
      this.limiter.hit(keys.identity, this.budget.perIdentity, window),
      this.limiter.hit(keys.source, this.budget.perSource, window),
      this.limiter.hit(keys.pair, 1, window),
    ]);
    return [byIdentity, bySource].find((decision) => !decision.allowed)?.retryAfterSeconds;
  }
}
