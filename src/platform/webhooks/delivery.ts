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
import type { DestinationGate } from './destination-gate.ts';
import type { FaultHooks } from '../faults.ts';

export interface DeliveryDeps {
  db: Database;
  clock: Clock;
  transport: WebhookTransport;
  recorder: AttemptRecorder;
  gate: DestinationGate;
  /** Faults on demand (sandbox only): a delivery attempt the account asked to fail does not reach the receiver. */
  faults?: FaultHooks;
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
  /**
   * false: a success does not end the job (billing notifications POST again until their token is queried), so
   * the attempt is recorded without marking the job done and the caller decides what comes next.
   */
  doneOnSuccess?: boolean;
}

/** Sent with every callback so a receiver can drop duplicates of at-least-once delivery. */
export const DELIVERY_ID_HEADER = 'x-pixd-delivery-id';
export const ATTEMPT_HEADER = 'x-pixd-attempt';

/**
 * The failure the account asked for instead of the call (docs/faults.md), if it did: recorded and retried
 * like a real one, but nothing is sent and the destination's gate never hears of it (its back-off is about
 * the receiver, which did nothing wrong).
 */
async function simulatedFailure(deps: DeliveryDeps, accountId: number): Promise<PostResult | undefined> {
  if (!deps.faults?.active(accountId, 'webhook')) return undefined;
  const fault = await deps.faults.take(deps.db, accountId, 'webhook');
  return (
    fault && {
      ok: false,
      statusCode: fault.status,
      latencyMs: 0,
      failure: { kind: 'http_status', message: `HTTP ${fault.status} (falha simulada do sandbox: não enviada)` },
    }
  );
}

/** The call itself, through the destination's gate: the result, or how long to put the delivery back. */
async function post(
  deps: DeliveryDeps,
  job: Pick<OutboxJob<unknown>, 'id' | 'attempt'>,
  delivery: Delivery,
): Promise<PostResult | { deferMs: number; reason: string }> {
  const clock = deps.clock.forAccount(delivery.accountId);
  const admission = deps.gate.admit(delivery.url, () => clock.nowMs());
  if ('deferMs' in admission) return admission;
  const result = await deps.transport.post(delivery.url, delivery.body, {
    clientCertificate: true,
    timeoutMs: delivery.timeoutMs,
    form: delivery.form,
    headers: { ...delivery.headers, [DELIVERY_ID_HEADER]: String(job.id), [ATTEMPT_HEADER]: String(job.attempt) },
  });
  admission.release({ ok: result.ok, failure: result.failure?.kind, statusCode: result.statusCode });
  return result;
}

export async function attemptDelivery(
  deps: DeliveryDeps,
  job: Pick<OutboxJob<unknown>, 'id' | 'topic' | 'attempt'>,
  delivery: Delivery,
): Promise<JobOutcome> {
  // The delivery's account's clock: moving it in the sandbox fast-forwards its retries, nobody else's.
  const clock = deps.clock.forAccount(delivery.accountId);
  const attemptedAt = clock.now();
  const result = (await simulatedFailure(deps, delivery.accountId)) ?? (await post(deps, job, delivery));
  if ('deferMs' in result)
    return { retryAt: new Date(clock.nowMs() + result.deferMs), error: `adiada: ${result.reason}.` };
  const error = result.failure ? `${result.failure.kind}: ${result.failure.message}` : null;
  const endsJob = result.ok && delivery.doneOnSuccess !== false;
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
    marksDone: endsJob,
  });
  // The recorder marked the job done in the attempt's own transaction (attempts.ts).
  if (endsJob) return { done: true, marked: true };
  if (result.ok) return { done: true };
  // This node stopping is not the receiver's failure: another node (or this one after restart) tries at once.
  if (result.failure?.kind === 'aborted') return { retryAt: clock.now(), error: error! };
  const failures = await countedFailures(deps.db, job.id);
  const next = nextAttemptAt(delivery.schedule, failures, clock.nowMs());
  return next ? { retryAt: next, error: error! } : { giveUp: `${failures} tentativa(s) com falha; última: ${error}` };
}
