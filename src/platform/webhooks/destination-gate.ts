/**
 * Which deliveries to one destination (origin) this node may start now. Two rules, both so that one
 * tenant's broken receiver costs the others nothing:
 * - a cap on calls in flight per destination: past it, a delivery is put back unsent instead of waiting
 *   in a queue where it would hold a slot every other destination needs;
 * - back-off: a destination whose calls keep failing (unreachable, no answer within the deadlines, TLS,
 *   HTTP 5xx) is closed for a while, doubling while it keeps failing; its deliveries are put back until
 *   then, unsent and uncounted (no attempt recorded, their retry schedule untouched), and when the while
 *   is over one call at a time probes it until one succeeds.
 * What a node learns here stays on that node (memory): another node learns it from its own calls. Its times are
 * the delivering account's clock, the one the retry schedules run on: wall time in production; in the sandbox,
 * an account whose clock is moved forward to see its retries sees its destination reopen with them (a wall-time
 * back-off would hold every retry the moved clock made due).
 */
import { LIMITS } from '../limits.ts';
import type { FailureKind } from './transport.ts';

interface DestinationState {
  inFlight: number;
  /** Failed calls in a row; a success resets it. */
  failures: number;
  /** Current back-off (0: none); doubles when the probe after it fails too. */
  backoffMs: number;
  closedUntilMs: number;
}

export type Admission =
  | { release(outcome: { ok: boolean; failure?: FailureKind; statusCode?: number }): void }
  | { deferMs: number; reason: string };

const BACKOFF = LIMITS.webhookDestinationBackoffMs;

/** Failures that say the destination is down or overwhelmed, not that it refused this one body. */
function destinationFailed(outcome: { ok: boolean; failure?: FailureKind; statusCode?: number }): boolean {
  if (outcome.ok) return false;
  if (outcome.failure === 'http_status') return (outcome.statusCode ?? 0) >= 500 || outcome.statusCode === 429;
  // A URL no transport takes (invalid_url) says nothing of the destination either.
  return outcome.failure !== 'aborted' && outcome.failure !== 'forbidden' && outcome.failure !== 'invalid_url';
}

export class DestinationGate {
  private readonly states = new Map<string, DestinationState>();

  constructor(
    private readonly perDestination: number,
    private readonly wallMs: () => number = Date.now,
  ) {}

  admit(url: string, nowMs: () => number = this.wallMs): Admission {
    const origin = new URL(url).origin;
    let state = this.states.get(origin);
    const now = nowMs();
    // A clock moved back (a sandbox clock reset) would leave the back-off closed for as long as it moved:
    // one that began after `now` ends now, and the destination is probed.
    if (state && state.closedUntilMs - state.backoffMs > now) state.closedUntilMs = now;
    // Spread over a further back-off: a destination's whole backlog coming due at one instant would be
    // claimed and put back at once, a burst of statements every other tenant's deliveries wait behind.
    const spread = (backoffMs: number) => Math.round(Math.random() * backoffMs);
    if (state && state.closedUntilMs > now)
      return {
        deferMs: state.closedUntilMs - now + spread(state.backoffMs),
        reason: 'o destino falhou seguidamente e está em espera',
      };
    // Once the back-off is over, one probe at a time; the rest wait as long as the back-off was.
    const probing = state !== undefined && state.backoffMs > 0;
    if (state && state.inFlight >= (probing ? 1 : this.perDestination))
      return probing
        ? {
            deferMs: state.backoffMs + spread(state.backoffMs),
            reason: 'o destino falhou seguidamente; uma tentativa por vez',
          }
        : {
            deferMs: LIMITS.webhookBusyDestinationDeferMs,
            reason: 'o destino já tem o máximo de entregas em andamento',
          };
    if (!state) {
      state = { inFlight: 0, failures: 0, backoffMs: 0, closedUntilMs: 0 };
      this.states.set(origin, state);
    }
    const held = state;
    held.inFlight++;
    return {
      release: (outcome) => {
        held.inFlight--;
        if (!destinationFailed(outcome)) {
          if (outcome.ok) Object.assign(held, { failures: 0, backoffMs: 0, closedUntilMs: 0 });
        } else {
          held.failures++;
          // Calls already in flight when it closed fail too: they do not lengthen the back-off again.
          const at = nowMs();
          if (held.failures >= LIMITS.webhookDestinationFailuresBeforeBackoff && held.closedUntilMs <= at) {
            held.backoffMs = held.backoffMs ? Math.min(held.backoffMs * 2, BACKOFF.max) : BACKOFF.first;
            held.closedUntilMs = at + held.backoffMs;
          }
        }
        if (held.inFlight === 0 && held.failures === 0) this.states.delete(origin);
      },
    };
  }
}
