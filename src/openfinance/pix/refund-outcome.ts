/**
 * The outcome of a refund of an Open Finance Pix parcel, as a callback to the application's `webhookURL`
 * (events.ts: the same outbox topic, retry schedule, mutual TLS and HMAC as the payment's other callbacks).
 * The refund is the payment engine's (pix/received): every path that settles one (the local settlement job, the
 * SPI's answer to its pacs.004, a MED return) goes through `settleRefund`, which calls this in the same
 * transaction, so an outcome is notified exactly when it commits. Every refund listed in the payment's
 * `devolucoes` is notified, including one made with `PUT /v2/pix/:e2eid/devolucao/:id` (docs/decisions.md).
 */
import type { Sql } from '../../platform/db/database.ts';
import { formatAmount } from '../../platform/money.ts';
import { enqueueOfCallback } from '../events.ts';
import { parcelRefund } from './store.ts';

/** The engine's refund status in the family's words (the list's `devolucoes[].status` and the callbacks). */
export const refundStatus = (status: string) =>
  status === 'DEVOLVIDO' ? 'aceito' : status === 'NAO_REALIZADO' ? 'rejeitado' : 'pendente';

export async function notifyRefundOutcome(
  sql: Sql,
  refundId: number,
  status: 'DEVOLVIDO' | 'NAO_REALIZADO',
  at: Date,
  motivo: string | null,
): Promise<void> {
  const refund = await parcelRefund(sql, refundId);
  if (!refund) return;
  await enqueueOfCallback(
    sql,
    refund.account_id,
    {
      tipo: 'devolucao',
      identificadorPagamento: refund.identificador,
      endToEndId: refund.end_to_end_id,
      identificadorDevolucao: refund.rtr_id,
      valor: formatAmount(refund.amount_cents),
      status: refundStatus(status),
      ...(motivo !== null && { motivo }),
      data: at.toISOString(),
    },
    at,
  );
}
