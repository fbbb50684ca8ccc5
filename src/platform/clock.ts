/**
 * The one source of "now". Expiry, due dates, retries and report dates all read it, so tests and the
 * sandbox can move time. The offset lives in the database (sandbox clock control must agree across nodes),
 * so `Clock` only caches it; `setOffsetMs` is called by whoever changed it.
 */
export interface Clock {
  now(): Date;
  nowMs(): number;
}

export class OffsetClock implements Clock {
  private offsetMs = 0;
  constructor(private readonly base: () => number = Date.now) {}
  nowMs(): number {
    return this.base() + this.offsetMs;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  get offset(): number {
    return this.offsetMs;
  }
  setOffsetMs(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }
}
