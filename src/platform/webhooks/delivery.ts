/**
 * One delivery attempt of one outbox job: POST with the service's client certificate, record the attempt,
 * and tell the outbox what comes next (done, retry at the schedule's next step, or give up).
 * Feature modules decide whether and where to deliver; this decides how.
 */
import type { Clock } from '../clock.ts';
import type { JobOutcome, OutboxJob } from '../outbox/jobs.ts';
import type { Database } from '../db/database.ts';
import { countedFailures, type AttemptRecorder } from './attempts.ts';
import { nextAttemptAt, type RetrySchedule } from './schedule.ts';
import type { PostResult, WebhookTransport } from './transport.ts';
import type { FaultHooks } from '../faults.ts';
import { LIMITS } from '../limits.ts';

export interface DeliveryDeps {
  db: Database;
  clock: Clock;
  transport: WebhookTransport;
  recorder: AttemptRecorder;
  slots: DestinationSlots;
  /** Faults on demand (sandbox only): a delivery attempt the account asked to fail does not reach the receiver. */
  faults?: FaultHooks;
}

/**
 * Calls in flight per destination (origin), on this node. A destination at its limit (a receiver hanging
 * until the timeout) gets its further deliveries put back for a moment, unsent and uncounted, instead of
 * letting them wait in a queue where they would hold slots every other destination needs.
 */
export class DestinationSlots {
  private readonly inFlight = new Map<string, number>();
  constructor(private readonly perDestination: number) {}

  /** A release function, or undefined when the destination is at its limit. */
  take(url: string): (() => void) | undefined {
    const origin = new URL(url).origin;
    const current = this.inFlight.get(origin) ?? 0;
    if (current >= this.perDestination) return undefined;
    this.inFlight.set(origin, current + 1);
    return () => {
      const left = (this.inFlight.get(origin) ?? 1) - 1;
      if (left > 0) this.inFlight.set(origin, left);
      else this.inFlight.delete(origin);
    };
  }
}

export interface Delivery {
  accountId: number;
  url: string;
  body: unknown;
  timeoutMs: number;
  schedule: RetrySchedule;
  /** Form-encoded body instead of JSON. */
  form?: boolean;
  /** Headers of the callback's own (an HMAC signature of the body, say), beside the delivery id and attempt. */
  headers?: Record<string, string>;
}

/** Sent with every callback so a receiver can drop duplicates of at-least-once delivery. */
export const DELIVERY_ID_HEADER = 'x-pixd-delivery-id';
export const ATTEMPT_HEADER = 'x-pixd-attempt';

/** The POST, or the failure the account asked for instead (recorded and retried like a real one). */
async function sendOrFail(
  deps: DeliveryDeps,
  job: Pick<OutboxJob<unknown>, 'id' | 'attempt'>,
  delivery: Delivery,
): Promise<PostResult> {
  const fault = deps.faults?.active(delivery.accountId, 'webhook')
    ? await deps.faults.take(deps.db, delivery.accountId, 'webhook')
    : undefined;
  if (fault)
    return {
      ok: false,
      statusCode: fault.status,
      latencyMs: 0,
      failure: { kind: 'http_status', message: `HTTP ${fault.status} (falha simulada do sandbox: não enviada)` },
    };
  return deps.transport.post(delivery.url, delivery.body, {
    clientCertificate: true,
    timeoutMs: delivery.timeoutMs,
    form: delivery.form,
    headers: { ...delivery.headers, [DELIVERY_ID_HEADER]: String(job.id), [ATTEMPT_HEADER]: String(job.attempt) },
  });
}

export async function attemptDelivery(
  deps: DeliveryDeps,
  job: Pick<OutboxJob<unknown>, 'id' | 'topic' | 'attempt'>,
  delivery: Delivery,
): Promise<JobOutcome> {
  // The delivery's account's clock: moving it in the sandbox fast-forwards its retries, nobody else's.
  const clock = deps.clock.forAccount(delivery.accountId);
  const release = deps.slots.take(delivery.url);
  if (!release)
    return {
      retryAt: new Date(clock.nowMs() + LIMITS.webhookBusyDestinationDeferMs),
      error: 'adiada: o destino já tem o máximo de entregas em andamento.',
    };
  const attemptedAt = clock.now();
  const result = await sendOrFail(deps, job, delivery).finally(release);
  const error = result.failure ? `${result.failure.kind}: ${result.failure.message}` : null;
  await deps.recorder.record({
    outboxId: job.id,
    accountId: delivery.accountId,
    topic: job.topic,
    url: delivery.url,
    attempt: job.attempt,
    attemptedAt,
    statusCode: result.statusCode ?? null,
    latencyMs: result.latencyMs,
    error,
    request: result.request,
    response: result.response,
  });
  if (result.ok) return { done: true };
  // This node stopping is not the receiver's failure: another node (or this one after restart) tries at once.
  if (result.failure?.kind === 'aborted') return { retryAt: clock.now(), error: error! };
  const failures = await countedFailures(deps.db, job.id);
  const next = nextAttemptAt(delivery.schedule, failures, clock.nowMs());
  return next ? { retryAt: next, error: error! } : { giveUp: `${failures} tentativa(s) com falha; última: ${error}` };
}
