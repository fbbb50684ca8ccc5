/**
 * Card refunds (spec: Refund rules). A refund is requested on a paid charge, stays "in process" for
 * LIMITS.billingRefundProcessingSeconds, then is done: the ledger gives the amount back to the acquirer and the
 * charge becomes partially_refunded or refunded. The card fee is not returned.
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { GroupErrorName } from '../../platform/errors.ts';
import { ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import { defineTopic, enqueue } from '../../platform/outbox/jobs.ts';
import { billingError } from '../shared/errors.ts';
import { brasiliaDate, DAY_MS } from '../../platform/calendar.ts';
import { formatBrl } from '../shared/money.ts';
import {
  finishRefund,
  insertHistory,
  insertRefund,
  lockCharge,
  refundsOf,
  updateCharge,
  type ChargeRow,
} from './store.ts';
import { requireStatus, transition } from './transitions.ts';

/** Completes a refund once its processing time has passed. */
export const REFUND_TOPIC = defineTopic<{ refundId: number }>({
  name: 'billing.card.refund',
  handler:
    ({ db, clock }) =>
    async (job) => {
      // The refund's time is its account's (the sandbox clock may have been moved for that account only).
      await db.tx((sql) => completeRefund(sql, job.payload.refundId, clock.forAccount(job.accountId).now()));
      return { done: true };
    },
});
const refusal = (error: GroupErrorName<'billing'>, description: string) => billingError(400, error, description);

/** Checks every rule, then records the refund in process. Returns the response message. */
export async function requestRefund(
  sql: Sql,
  charge: ChargeRow,
  amount: number | undefined,
  now: Date,
): Promise<string> {
  requireStatus(charge, ['paid', 'partially_refunded'], 'O estorno');
  if (charge.payment?.method !== 'credit_card')
    throw refusal('refund_not_card', 'Somente cobranças pagas com cartão podem ser estornadas.');
  if (charge.marketplace) throw refusal('refund_marketplace', 'Vendas de marketplace não podem ser estornadas.');
  const refunds = await refundsOf(sql, charge.id);
  if (refunds.some((r) => r.status === 'processing'))
    throw refusal('refund_in_process', 'Já existe um estorno em processamento para esta cobrança.');
  const remaining = charge.paid_cents! - charge.refunded_cents;
  const cents = amount ?? remaining;
  if (cents > remaining)
    throw refusal('refund_exceeds_remaining', `O valor (${cents}) excede o que resta a estornar (${remaining}).`);
  const partial = cents < remaining;
  const ageDays = (now.getTime() - charge.paid_at!.getTime()) / DAY_MS;
  const windowDays = partial ? LIMITS.billingPartialRefundWindowDays : LIMITS.billingTotalRefundWindowDays;
  if (ageDays > windowDays) {
    throw refusal(
      'refund_window_expired',
      `Estorno ${partial ? 'parcial' : 'total'} só é possível até ${windowDays} dias após a confirmação do pagamento.`,
    );
  }
  const today = brasiliaDate(now);
  if (
    partial &&
    refunds.filter((r) => r.partial && brasiliaDate(r.created_at) === today).length >=
      LIMITS.billingPartialRefundsPerDay
  ) {
    throw refusal('partial_refund_daily_limit', 'Só é possível um estorno parcial por dia por cobrança.');
  }
  const refundId = await insertRefund(sql, { chargeId: charge.id, amountCents: cents, partial }, now);
  await insertHistory(
    sql,
    charge.id,
    { message: `Estorno ${partial ? 'parcial' : 'total'} de R$ ${formatBrl(cents)} solicitado; em processamento.` },
    now,
  );
  await enqueue(sql, {
    topic: REFUND_TOPIC,
    payload: { refundId },
    accountId: charge.account_id,
    availableAt: new Date(now.getTime() + LIMITS.billingRefundProcessingSeconds * 1000),
    now,
  });
  return 'Estorno em processamento.';
}

/** The refund is done: ledger, refunded amount, status. Idempotent (a finished refund is not finished twice). */
export async function completeRefund(sql: Sql, refundId: number, now: Date): Promise<void> {
  const { rows } = await sql.query<{ charge_id: number }>('select charge_id from billing_refunds where id = $1', [
    refundId,
  ]);
  if (!rows[0]) return;
  const charge = await lockCharge(sql, { id: rows[0].charge_id });
  const refund = charge && (await finishRefund(sql, refundId, now));
  if (!charge || !refund) return;
  await transfer(sql, {
    kind: 'billing_card_refund',
    reference: `billing_refund:${refund.id}`,
    accountId: charge.account_id,
    at: now,
    from: ledgerCode.available(charge.account_id),
    to: ledgerCode.externalCard,
    amountCents: refund.amount_cents,
  });
  const refunded = charge.refunded_cents + refund.amount_cents;
  const amountText = `R$ ${formatBrl(refund.amount_cents)}`;
  if (refunded === charge.paid_cents) {
    await transition(sql, charge, charge.status, 'refunded', now, {
      message: amountText,
      changes: { refunded_cents: refunded },
    });
  } else if (charge.status === 'paid') {
    await transition(sql, charge, 'paid', 'partially_refunded', now, {
      message: amountText,
      changes: { refunded_cents: refunded },
    });
  } else {
    // A further partial refund: no status change, so a history entry and no notification.
    await updateCharge(sql, charge.id, { refunded_cents: refunded }, now);
    await insertHistory(sql, charge.id, { message: `Estorno parcial realizado. ${amountText}` }, now);
  }
}
