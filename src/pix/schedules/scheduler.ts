/**
 * The scheduler: two outbox jobs on the service clock move a scheduled Pix along.
 *
 *   schedule.due  (available at scheduling_date)  scheduled -> waiting; queues schedule.send
 *   schedule.send (LIMITS.scheduledPixSendDelaySeconds later)  waiting -> finished, debiting
 *                 `customer available -> external:pix` and, when the schedule names the sender's key,
 *                 queueing that key's sent-Pix webhook event (./events.ts) in the same transaction; or
 *                 waiting -> rejected when the available balance does not cover it (nothing is debited
 *                 or notified then)
 *
 * Both jobs are on the schedule's account's clock, so moving that account's sandbox clock past a date
 * runs the schedule (and nobody else's). Each job locks the schedule and acts only from the state it expects, so a job delivered
 * twice does nothing the second time; the balance is read under the customer's lock, so two schedules
 * (or a schedule and a refund) cannot spend the same funds.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { balanceCents, ledgerCode, lockCustomer, transfer } from '../../platform/ledger/ledger.ts';
import { LIMITS } from '../../platform/limits.ts';
import { SENT_PIX_KIND } from '../reports/record-types.ts';
import { enqueueSentPixEvent } from './events.ts';
import { lockSchedule, setScheduleStatus } from './store.ts';

/** Stable codes of a rejected schedule (`error_code`), with the text shown as `error_description`. */
export const REJECTIONS = {
  saldo_insuficiente: 'Saldo disponível insuficiente para o Pix agendado.',
} as const;

type Payload = { scheduleId: number };

export const SCHEDULE_TOPICS = {
  due: defineTopic<Payload>({ name: 'schedule.due', handler: ({ db, clock }) => scheduleDueHandler(db, clock) }),
  send: defineTopic<Payload>({ name: 'schedule.send', handler: ({ db, clock }) => scheduleSendHandler(db, clock) }),
};

export function enqueueDue(
  sql: Sql,
  accountId: number,
  scheduleId: number,
  schedulingDate: Date,
  now: Date,
): Promise<number> {
  return enqueue(sql, {
    topic: SCHEDULE_TOPICS.due,
    payload: { scheduleId },
    accountId,
    availableAt: schedulingDate,
    now,
  });
}

export function scheduleDueHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Payload>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const schedule = await lockSchedule(sql, job.payload.scheduleId);
      if (schedule?.status !== 'scheduled') return;
      const now = clock.forAccount(schedule.account_id).now();
      await setScheduleStatus(sql, schedule.id, 'waiting', now);
      await enqueue(sql, {
        topic: SCHEDULE_TOPICS.send,
        payload: { scheduleId: schedule.id },
        accountId: schedule.account_id,
        availableAt: new Date(now.getTime() + LIMITS.scheduledPixSendDelaySeconds * 1000),
        now,
      });
    });
    return { done: true };
  };
}

export function scheduleSendHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Payload>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const schedule = await lockSchedule(sql, job.payload.scheduleId);
      if (schedule?.status !== 'waiting') return;
      const now = clock.forAccount(schedule.account_id).now();
      await lockCustomer(sql, schedule.account_id);
      const available = await balanceCents(sql, ledgerCode.available(schedule.account_id));
      if (available < schedule.amount_cents) {
        await setScheduleStatus(sql, schedule.id, 'rejected', now, {
          code: 'saldo_insuficiente',
          description: REJECTIONS.saldo_insuficiente,
        });
        return;
      }
      await transfer(sql, {
        kind: SENT_PIX_KIND[schedule.destination],
        reference: schedule.end_to_end_id,
        accountId: schedule.account_id,
        at: now,
        from: ledgerCode.available(schedule.account_id),
        to: ledgerCode.externalPix,
        amountCents: schedule.amount_cents,
      });
      await setScheduleStatus(sql, schedule.id, 'finished', now);
      if (schedule.chave !== null) await enqueueSentPixEvent(sql, { ...schedule, chave: schedule.chave }, now);
    });
    return { done: true };
  };
}
