/**
 * Settlement of an automatic payment, an outbox job at 00:00 Brasília of its date on the account's clock (at
 * once for a payment dated today). The payer's institution decides (`AppContext.payerInstitution`): the sandbox's
 * simulated payer pays by sending its Pix through the SPI boundary, or refuses by amount (src/sandbox/payer.ts); a
 * production node has no Open Finance connector, so the payment is refused with that reason by name
 * (src/spi/payer.ts). A paid payment was credited to the favorecido by the one payment engine (ledger, GET /v2/pix,
 * the reconciliation report and refunds agree) and becomes `aceito`; a refused one `rejeitado` with `motivo`. The
 * job acts only on a payment still `pendente`, in the three steps of ../settle.ts: delivered twice, it asks for
 * the same Pix (the boundary's claim of its end-to-end id answers a copy with the first answer and credits once)
 * and moves the payment once.
 */
import { brasiliaDayStart } from '../../platform/calendar.ts';
import type { Sql } from '../../platform/db/database.ts';
import type { AppContext } from '../../platform/context.ts';
import { formatAmount } from '../../platform/money.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { enqueueOfCallback } from '../events.ts';
import { settleThroughPayer } from '../settle.ts';
import { findEnrolment, type EnrolmentRow } from '../enrolments/store.ts';
import type { PaymentStatus } from '../shared.ts';
import { findPayment, markPaymentAsked, setPaymentStatus, type PaymentRow } from './store.ts';

type SettleJob = { paymentId: number };

export const PAYMENT_SETTLE_TOPIC = defineTopic<SettleJob, AppContext>({
  name: 'of.payment.settle',
  handler: (ctx) => settleHandler(ctx),
});

export function enqueueSettlement(sql: Sql, row: PaymentRow, now: Date) {
  const at = brasiliaDayStart(row.data);
  return enqueue(sql, {
    topic: PAYMENT_SETTLE_TOPIC,
    payload: { paymentId: row.id },
    accountId: row.account_id,
    availableAt: at > now ? at : now,
    now,
  });
}

const MOVES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pendente: ['aceito', 'rejeitado', 'cancelado', 'expirado'],
  aceito: [],
  rejeitado: [],
  cancelado: [],
  expirado: [],
};

/** A status change (or, with the same status, the creation) and its callback, in the caller's transaction. */
export async function movePayment(
  sql: Sql,
  enrolment: EnrolmentRow,
  row: PaymentRow,
  status: PaymentStatus,
  motivo: string | null,
  now: Date,
): Promise<PaymentRow> {
  if (status !== row.status && !MOVES[row.status].includes(status))
    throw new Error(`payment ${row.end_to_end_id}: ${row.status} -> ${status}`);
  const moved = status === row.status ? row : await setPaymentStatus(sql, row.id, status, motivo, now);
  await enqueueOfCallback(
    sql,
    row.account_id,
    {
      tipo: 'pagamento',
      identificadorAdesao: enrolment.identificador,
      endToEndId: row.end_to_end_id,
      valor: formatAmount(row.amount_cents),
      status,
      ...(motivo !== null && { motivo }),
      data: now.toISOString(),
    },
    now,
  );
  return moved;
}

function settleHandler(ctx: AppContext) {
  const { clock } = ctx;
  return async (job: OutboxJob<SettleJob>): Promise<JobOutcome> => {
    const pending = async (sql: Sql) => {
      const row = await findPayment(sql, { id: job.payload.paymentId }, true);
      return row?.status === 'pendente' ? row : undefined;
    };
    await settleThroughPayer(ctx, {
      ask: async (sql) => {
        const row = await pending(sql);
        if (!row) return undefined;
        const enrolment = (await findEnrolment(sql, { id: row.enrolment_id }))!;
        const now = clock.forAccount(row.account_id).now();
        // An enrolment no longer authorised pays nothing, unless its payer's institution was asked already.
        if (enrolment.status !== 'autorizado' && row.payer_asked_at === null) {
          const motivo = `A adesão está ${enrolment.status}: o pagamento não foi feito.`;
          await movePayment(sql, enrolment, row, 'rejeitado', motivo, now);
          return undefined;
        }
        await markPaymentAsked(sql, row.id, now);
        const { pagador, favorecido } = enrolment.body;
        return {
          conta: favorecido.contaBanco.conta,
          amountCents: row.amount_cents,
          payer: pagador,
          infoPagador: row.info_pagador,
          endToEndId: row.end_to_end_id,
          now,
        };
      },
      answer: async (sql, outcome) => {
        const row = await pending(sql);
        if (!row) return;
        const enrolment = (await findEnrolment(sql, { id: row.enrolment_id }))!;
        const now = clock.forAccount(row.account_id).now();
        if ('paid' in outcome) await movePayment(sql, enrolment, row, 'aceito', null, now);
        else await movePayment(sql, enrolment, row, 'rejeitado', outcome.refused, now);
      },
    });
    return { done: true };
  };
}
