/**
 * Confirmations of many approved card charges of one account in one transaction (a batch of subscription
 * renewals, src/billing/subscriptions/renewal-batch.ts): what `confirmCardPayment` does for one — the acquirer's
 * payment to the seller and the card fee in the journal, approved → paid with its status event and notification
 * — written for the whole batch by one statement. A charge with marketplace shares or shipping payouts, or a
 * carnê parcel, is confirmed by `confirmCardPayment` itself; a charge no longer approved is left alone (the job
 * runs at least once: a second run finds them paid).
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { asLedgerError, ledgerAccountIds, ledgerCode } from '../../platform/ledger/ledger.ts';
import { moneyMoved } from '../../platform/logging.ts';
import { percentHalfUp } from '../../platform/money.ts';
import { defineTopic, jobRow, type JobDeps, type NewJob } from '../../platform/outbox/jobs.ts';
import { notificationJob } from '../notifications/delivery.ts';
import { confirmCardPayment } from './payment.ts';
import { lockCharges, markConfirmedPaid, type ChargeRow } from './store.ts';
import { MESSAGES } from './transitions.ts';

type ConfirmationsJob = { chargeIds: number[] };

export const CONFIRMATIONS_TOPIC = defineTopic<ConfirmationsJob, JobDeps>({
  name: 'billing.card.settle-batch',
  handler:
    ({ db, clock }) =>
    async (job) => {
      await db.tx(async (sql) => {
        const charges = await lockCharges(sql, job.payload.chargeIds);
        if (charges.length) await confirmCardPayments(sql, charges, clock.forAccount(job.accountId).now());
      });
      return { done: true };
    },
});

/** The confirmation of charges of one account approved at `now`, LIMITS.billingCardSettlementDelaySeconds later. */
export function confirmationsJob(accountId: number, chargeIds: number[], now: Date): NewJob<ConfirmationsJob> {
  const availableAt = new Date(now.getTime() + LIMITS.billingCardSettlementDelaySeconds * 1000);
  return { topic: CONFIRMATIONS_TOPIC, payload: { chargeIds }, accountId, availableAt, now };
}

/** approved → paid for each of the charges (one account's, locked), with its ledger entries. */
export async function confirmCardPayments(sql: Sql, charges: ChargeRow[], now: Date): Promise<void> {
  const approved = charges.filter((c) => c.status === 'approved');
  const plain = approved.filter(
    (c) => c.kind === 'charge' && c.carnet_id === null && !c.marketplace && !c.shippings.some((s) => s.payee_code),
  );
  for (const charge of approved) if (!plain.includes(charge)) await confirmCardPayment(sql, charge, now);
  if (!plain.length) return;
  const accountId = plain[0].account_id;
  const seller = ledgerCode.available(accountId);
  const ids = await ledgerAccountIds(sql, [ledgerCode.externalCard, seller, ledgerCode.fees]);
  const rows = plain.map((c) => ({
    charge: c,
    paid: c.total_cents,
    fee: percentHalfUp(c.total_cents, LIMITS.billingCardFeeBasisPoints),
    generation: c.notification_url ? c.notification_generation + 1 : c.notification_generation,
  }));
  const jobs = rows.flatMap((r) =>
    r.charge.notification_url ? [jobRow(notificationJob(r.charge, r.generation, now))] : [],
  );
  try {
    await markConfirmedPaid(sql, {
      accountId,
      rows: rows.map((r) => ({ chargeId: r.charge.id, paidCents: r.paid, feeCents: r.fee, generation: r.generation })),
      ledger: { card: ids.get(ledgerCode.externalCard)!, seller: ids.get(seller)!, fees: ids.get(ledgerCode.fees)! },
      message: MESSAGES.paid!,
      jobs,
      now,
    });
  } catch (error) {
    throw asLedgerError(error, { kind: 'billing_card_payment', reference: `billing_charge:${plain[0].id}…` });
  }
  for (const job of jobs) job.wake(sql);
  for (const { charge, paid, fee } of rows) {
    const reference = `billing_charge:${charge.id}`;
    moneyMoved(sql, { kind: 'billing_card_payment', reference, accountId, amountCents: paid });
    if (fee > 0) moneyMoved(sql, { kind: 'billing_card_fee', reference, accountId, amountCents: fee });
  }
}
