/**
 * A boleto's jobs on its account's clock: `expire` (waiting → unpaid once the clock is past the due date) and
 * `credit` (a payment by barcode credited, and the charge paid, on the next business day).
 */
import type { Sql } from '../../platform/db/database.ts';
import { ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import { brasiliaDate, brasiliaDayStart, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { defineTopic, enqueue, type JobDeps, type JobHandler } from '../../platform/outbox/jobs.ts';
import { lockCharge, type ChargeRow } from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import { findBoleto, lockPixChargeOf, type BoletoRow } from './store.ts';

export /** The first day after the due date at 00:00 Brasília: when the boleto turns unpaid if nothing paid it. */
const expiryAt = (dueDate: string) => brasiliaDayStart(fromEpochDay(toEpochDay(dueDate) + 1));

type BoletoJob = { chargeId: number };

export function enqueueBoletoJob(
  sql: Sql,
  topic: typeof BOLETO_TOPICS.expire,
  charge: Pick<ChargeRow, 'id' | 'account_id'>,
  at: Date,
  now: Date,
) {
  return enqueue(sql, { topic, payload: { chargeId: charge.id }, accountId: charge.account_id, availableAt: at, now });
}

/** A boleto job: in one transaction, the Pix charge then the charge locked (the engine's order), on its account's clock. */
const onBoleto =
  (work: (sql: Sql, charge: ChargeRow, boleto: BoletoRow, now: Date) => Promise<unknown>) =>
  ({ db, clock }: JobDeps): JobHandler<BoletoJob> =>
  async (job) => {
    await db.tx(async (sql) => {
      await lockPixChargeOf(sql, job.payload.chargeId);
      const charge = await lockCharge(sql, { id: job.payload.chargeId });
      const boleto = charge && (await findBoleto(sql, { chargeId: charge.id }));
      if (charge && boleto) await work(sql, charge, boleto, clock.forAccount(charge.account_id).now());
    });
    return { done: true };
  };

/** waiting → unpaid once the account's clock is past the due date (a new due date queued its own check). */
async function expireIfDue(sql: Sql, charge: ChargeRow, boleto: BoletoRow, now: Date): Promise<void> {
  if (charge.status !== 'waiting' || boleto.barcode_paid_at || brasiliaDate(now) <= boleto.due_date) return;
  await transition(sql, charge, 'waiting', 'unpaid', now);
}

/** A boleto paid by barcode is credited when the bank compensates it: the paid amount from external:boleto. */
async function creditBarcodePayment(sql: Sql, charge: ChargeRow, boleto: BoletoRow, now: Date): Promise<void> {
  if (!boleto.barcode_paid_at || !['waiting', 'unpaid'].includes(charge.status)) return;
  const cents = Number(boleto.barcode_paid_cents);
  await transfer(sql, {
    kind: 'billing_boleto_payment',
    reference: `billing_charge:${charge.id}`,
    accountId: charge.account_id,
    at: now,
    from: ledgerCode.externalBoleto,
    to: ledgerCode.available(charge.account_id),
    amountCents: cents,
  });
  await transition(sql, charge, charge.status, 'paid', now, {
    message: 'Boleto pago e compensado.',
    valueCents: cents,
    receivedByBankAt: boleto.barcode_paid_at,
    changes: { paid_at: boleto.barcode_paid_at, paid_cents: cents },
  });
}

export const BOLETO_TOPICS = {
  expire: defineTopic<BoletoJob>({ name: 'billing.boleto.expire', handler: onBoleto(expireIfDue) }),
  credit: defineTopic<BoletoJob>({ name: 'billing.boleto.credit', handler: onBoleto(creditBarcodePayment) }),
};
