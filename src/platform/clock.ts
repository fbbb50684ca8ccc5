/**
 * The one source of "now". Expiry, due dates, retries and report dates all read it, so tests and the
 * sandbox can move time.
 *
 * Time is per account: in the sandbox each account has its own clock (an offset from the service's time,
 * as test clocks are per customer elsewhere), so moving one account's clock moves its charges, due dates,
 * schedules and retries and nobody else's. Whatever belongs to an account reads `clock.forAccount(id)`;
 * the service's own time (`clock.now()`) is wall time in production and in a running sandbox, and is only
 * ever moved by a test that injects the clock. Tokens and rate limits read neither: they live on wall time.
 *
 * The account offsets live in the database (every node must agree, see src/sandbox/clock.ts), so the
 * clock only caches them; whoever changes one updates the cache, and each sandbox node re-reads them on a
 * short interval (runtime). Production never loads any: there, every account's clock is wall time.
 */
export interface Clock {
  now(): Date;
  nowMs(): number;
  /** The clock of an account (null or undefined: the service's own). */
  forAccount(accountId: number | null | undefined): Clock;
}

export class OffsetClock implements Clock {
  private offsetMs = 0;
  private accountOffsets = new Map<number, number>();
  /** Bumped by every local change, so a refresh read before it cannot put an older value back. */
  private generation = 0;
  constructor(private readonly base: () => number = Date.now) {}
  nowMs(): number {
    return this.base() + this.offsetMs;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  /** The service's own offset: tests only (a running service has none). */
  get offset(): number {
    return this.offsetMs;
  }
  setOffsetMs(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }

  forAccount(accountId: number | null | undefined): Clock {
    if (accountId === null || accountId === undefined) return this;
    return new AccountClock(this, accountId);
  }

  /** How far an account's clock is ahead of the service's (0 when never moved). */
  accountOffsetMs(accountId: number): number {
    return this.accountOffsets.get(accountId) ?? 0;
  }

  /** After a change committed by this node. */
  setAccountOffsetMs(accountId: number, offsetMs: number): void {
    this.generation++;
    if (offsetMs === 0) this.accountOffsets.delete(accountId);
    else this.accountOffsets.set(accountId, offsetMs);
  }

  /**
   * A refresh: `read` returns every non-zero offset in the database. A local change made while it was in
   * flight wins (the refresh may have read before that change committed); the next refresh catches up.
   */
  async refreshAccountOffsets(read: () => Promise<Map<number, number>>): Promise<void> {
    const before = this.generation;
    const offsets = await read();
    if (this.generation === before) this.accountOffsets = offsets;
  }
}

class AccountClock implements Clock {
  constructor(
    private readonly service: OffsetClock,
    private readonly accountId: number,
  ) {}
  nowMs(): number {
    return this.service.nowMs() + this.service.accountOffsetMs(this.accountId);
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  forAccount(accountId: number | null | undefined): Clock {
    return this.service.forAccount(accountId);
  }
}
