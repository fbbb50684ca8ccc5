/**
 * The webhook side of the outbox. Deliveries wait on other people's servers, so they get their own claim
 * loops ("lanes", each an OutboxWorker over the same table) instead of sharing the one that settles
 * payments and refunds: one receiver hanging until its timeout must hold neither internal jobs nor every
 * other receiver. Lanes claim continuously (a finished delivery frees its slot at once, no waiting for a
 * batch), and each destination has a bounded number of calls in flight (`DestinationSlots`), so a slow or
 * dead destination slows only itself. Several lanes claim with `for update skip locked`, on this node and
 * on every other. Per-charge order still holds: a key's next job is not claimable until the previous one
 * is done.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { jobErrorLogger, OutboxWorker } from '../outbox/outbox.ts';
import type { AnyTopic } from '../outbox/jobs.ts';
import { AttemptRecorder } from './attempts.ts';
import { destinationPolicy } from './destinations.ts';
import { WebhookTransport } from './transport.ts';
import { webhookSettings } from './settings.ts';
import type { DeliveryDeps } from './delivery.ts';
import { DestinationGate } from './destination-gate.ts';
import { LIMITS } from '../limits.ts';

export const WEBHOOK_LANES = {
  count: 4,
  /** Jobs claimed per lane at a time: 4 × 100 in flight keeps a local receiver above 1,000/s (docs/performance.md). */
  batchSize: 100,
  /** Engines enqueue webhook events and wake the main worker, not these lanes: a short poll bounds the lag. */
  pollIntervalMs: 50,
} as const;

export class WebhookDispatcher implements DeliveryDeps {
  readonly transport: WebhookTransport;
  readonly recorder: AttemptRecorder;
  readonly gate = new DestinationGate(LIMITS.webhookCallsInFlightPerDestination);
  readonly clock: AppContext['clock'];
  readonly db: AppContext['db'];
  readonly faults: AppContext['faults'];
  private readonly lanes: OutboxWorker[];
  private started = false;

  constructor(ctx: Pick<AppContext, 'config' | 'db' | 'clock' | 'pki' | 'outbox' | 'faults'>) {
    this.clock = ctx.clock;
    this.db = ctx.db;
    this.faults = ctx.faults;
    this.transport = new WebhookTransport(
      ctx.pki.webhookClient,
      ctx.pki.ca.certPem,
      destinationPolicy({ environment: ctx.config.environment, allow: ctx.config.webhookAllow }),
    );
    this.recorder = new AttemptRecorder(ctx.db, ctx.clock);
    this.lanes = Array.from(
      { length: WEBHOOK_LANES.count },
      () =>
        new OutboxWorker(ctx.db, ctx.clock, {
          batchSize: WEBHOOK_LANES.batchSize,
          pollIntervalMs: WEBHOOK_LANES.pollIntervalMs,
          leaseMs: webhookSettings().leaseMs,
          continuous: true,
          fairByAccount: true,
        }),
    );
    // A commit that wakes the main outbox (a payment, a refund) has usually enqueued a webhook too.
    ctx.outbox.onWake((topic) => this.wake(topic));
  }

  private readonly topics = new Set<string>();

  /** Every lane claims the topic; they share one handler (and what it keeps, such as its webhook lookups). */
  register(topic: AnyTopic<DeliveryDeps>): void {
    this.topics.add(topic.name);
    const handler = topic.handler(this);
    for (const lane of this.lanes) lane.register({ name: topic.name, handler: () => handler }, undefined);
  }

  start(log: FastifyInstance['log']): void {
    if (this.started) return;
    this.started = true;
    this.recorder.log = log;
    for (const lane of this.lanes) {
      lane.setErrorLogger(jobErrorLogger(log, 'webhook job failed'));
      lane.start();
    }
  }

  private nextLane = 0;

  /**
   * After a commit that enqueued webhook work: one lane, in turn. A lane claims up to a batch of ready jobs at
   * once, so one claim picks up what a commit wrote; waking every lane cost a claim statement each per commit
   * (three of four finding nothing), which was most of the database work a settlement caused after its own
   * statements. The other lanes keep polling, and a lane that finishes a job claims again at once.
   */
  wake(topic?: string): void {
    if (topic !== undefined && !this.topics.has(topic)) return;
    // The next lane with a free slot: a lane full of calls to a hanging receiver would claim nothing.
    for (let tried = 0; tried < this.lanes.length; tried++) {
      const lane = this.lanes[this.nextLane];
      this.nextLane = (this.nextLane + 1) % this.lanes.length;
      if (lane.freeSlots > 0) {
        lane.wake();
        return;
      }
    }
  }

  /** Claims nothing more; calls in flight are aborted and rescheduled at once for any node. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    const stopping = this.lanes.map((lane) => lane.stop());
    this.transport.close();
    await Promise.all(stopping);
  }
}
