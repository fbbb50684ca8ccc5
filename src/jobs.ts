/**
 * Every outbox topic of the core, in one place: the runtime registers them here on the worker that claims
 * them (docs/architecture.md, "Jobs and outbox topics"). A topic is defined beside the code that enqueues
 * it (`defineTopic`); adding one means adding it to one of these lists. The sandbox registers its own
 * (src/sandbox/extension.ts), in sandbox mode only.
 */
import { REFUND_TOPIC } from './billing/charges/refunds.ts';
import { CARD_TOPICS } from './billing/charges/payment.ts';
import { CONFIRMATIONS_TOPIC } from './billing/charges/confirmations.ts';
import { BOLETO_TOPICS } from './billing/boletos/jobs.ts';
import { MAIL_TOPIC } from './billing/mail/delivery.ts';
import { NOTIFICATION_TOPIC } from './billing/notifications/delivery.ts';
import { RENEWAL_TOPIC } from './billing/subscriptions/renewal.ts';
import { TRIAL_END_TOPIC } from './billing/subscriptions/trial.ts';
import { OPENING_TOPIC } from './opening/events.ts';
import { OF_CALLBACK_TOPIC } from './openfinance/events.ts';
import { CONSENT_EXPIRY_TOPIC, ENROLMENT_END_TOPIC } from './openfinance/enrolments/transitions.ts';
import { PAYMENT_SETTLE_TOPIC } from './openfinance/payments/settlement.ts';
import { PARCEL_SETTLE_TOPIC, PIX_CONSENT_EXPIRY_TOPIC } from './openfinance/pix/transitions.ts';
import { LINK_CONSENT_EXPIRY_TOPIC } from './openfinance/links/consent.ts';
import { BILL_SETTLE_TOPIC, BILL_WEBHOOK_TOPIC } from './billing/bills/settlement.ts';
import { COBR_TOPICS } from './pix/cobr/settlement.ts';
import { LOTECOBV_TOPIC } from './pix/lotecobv/process.ts';
import { SOLICREC_TOPICS } from './pix/solicrec/service.ts';
import { REFUND_SETTLE_TOPIC } from './pix/received/jobs.ts';
import { REPORT_TOPIC } from './pix/reports/generator.ts';
import { STATEMENT_TOPIC } from './billing/statements/generator.ts';
import { SCHEDULE_TOPICS } from './pix/schedules/scheduler.ts';
import { WEBHOOK_TOPICS } from './pix/webhook/events.ts';
import { SEND_SETTLE_TOPIC } from './pix/send/settlement.ts';
import { INFRACTION_DEADLINE_TOPIC } from './pix/infractions/service.ts';
import { CONFIRMATION_EXPIRY_TOPIC } from './pix/payments/holds.ts';
import { ATTEMPT_RETENTION_TOPIC } from './platform/webhooks/retention.ts';
import { SPI_TIMEOUT_TOPIC } from './spi/answers.ts';
import type { AppContext } from './platform/context.ts';
import type { AnyTopic } from './platform/outbox/jobs.ts';
import type { DeliveryDeps } from './platform/webhooks/delivery.ts';

/** Internal jobs, on the main worker (`ctx.outbox`); their handlers are built from the context. */
export const JOB_TOPICS: readonly AnyTopic<AppContext>[] = [
  REFUND_SETTLE_TOPIC,
  LOTECOBV_TOPIC,
  REPORT_TOPIC,
  STATEMENT_TOPIC,
  SCHEDULE_TOPICS.due,
  SCHEDULE_TOPICS.send,
  CARD_TOPICS.authorize,
  CARD_TOPICS.settle,
  CONFIRMATIONS_TOPIC,
  RENEWAL_TOPIC,
  TRIAL_END_TOPIC,
  BOLETO_TOPICS.expire,
  BOLETO_TOPICS.credit,
  MAIL_TOPIC,
  REFUND_TOPIC,
  SEND_SETTLE_TOPIC,
  INFRACTION_DEADLINE_TOPIC,
  COBR_TOPICS.ack,
  COBR_TOPICS.attempt,
  COBR_TOPICS.expire,
  SOLICREC_TOPICS.send,
  SOLICREC_TOPICS.expire,
  CONFIRMATION_EXPIRY_TOPIC,
  CONSENT_EXPIRY_TOPIC,
  ENROLMENT_END_TOPIC,
  PAYMENT_SETTLE_TOPIC,
  PARCEL_SETTLE_TOPIC,
  PIX_CONSENT_EXPIRY_TOPIC,
  LINK_CONSENT_EXPIRY_TOPIC,
  BILL_SETTLE_TOPIC,
  ATTEMPT_RETENTION_TOPIC,
  SPI_TIMEOUT_TOPIC,
];

/** Deliveries to other people's servers, on the webhook lanes (`ctx.webhooks`). */
export const DELIVERY_TOPICS: readonly AnyTopic<DeliveryDeps>[] = [
  ...Object.values(WEBHOOK_TOPICS),
  OPENING_TOPIC,
  NOTIFICATION_TOPIC,
  OF_CALLBACK_TOPIC,
  BILL_WEBHOOK_TOPIC,
];

export function registerJobs(ctx: AppContext): void {
  for (const topic of JOB_TOPICS) ctx.outbox.register(topic, ctx);
  for (const topic of DELIVERY_TOPICS) ctx.webhooks.register(topic);
}
