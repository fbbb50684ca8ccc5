/**
 * Settlement of an automatic payment, an outbox job at 00:00 Brasília of its date on the account's clock (at
 * once for a payment dated today). The payer's institution decides (`AppContext.payerInstitution`): the sandbox's
 * simulated payer pays or refuses by amount (src/sandbox/payer.ts); a production node has no Open Finance
 * connector, so the payment is refused with that reason by name (src/spi/payer.ts). A paid payment
 * is credited to the favorecido through the one payment engine (`receivePix`: ledger, GET /v2/pix, the
 * reconciliation report and refunds agree) and becomes `aceito`; a refused one `rejeitado` with `motivo`. The
 * job acts only on a payment still `pendente` (delivered twice, it does nothing twice), and the engine's unique
 * end-to-end id is the last line against paying twice.
 */
import { brasiliaDayStart } from '../../platform/calendar.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import type { AppContext } from '../../platform/context.ts';
import type { PayerInstitution } from '../../platform/extensions.ts';
import { formatAmount } from '../../platform/money.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { enqueueOfCallback } from '../events.ts';
import { PayerRefused, receiveFromPayer, settleOrRefuse } from '../settle.ts';
import { findEnrolment, type EnrolmentRow } from '../enrolments/store.ts';
import type { PaymentStatus } from '../shared.ts';
import { findPayment, setPaymentStatus, type PaymentRow } from './store.ts';

type SettleJob = { paymentId: number };

export const PAYMENT_SETTLE_TOPIC = defineTopic<SettleJob, AppContext>({
  name: 'of.payment.settle',
  handler: ({ db, clock, payerInstitution }) => settleHandler(db, clock, payerInstitution),
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

function settleHandler(db: Database, clock: Clock, payerInstitution: PayerInstitution) {
  return async (job: OutboxJob<SettleJob>): Promise<JobOutcome> => {
    await settleOrRefuse(
      db,
      async (sql) => {
        const row = await findPayment(sql, { id: job.payload.paymentId }, true);
        if (row?.status !== 'pendente') return;
        const enrolment = (await findEnrolment(sql, { id: row.enrolment_id }))!;
        const now = clock.forAccount(row.account_id).now();
        if (enrolment.status !== 'autorizado')
          throw new PayerRefused(`A adesão está ${enrolment.status}: o pagamento não foi feito.`);
        const { pagador, favorecido } = enrolment.body;
        await receiveFromPayer(sql, now, payerInstitution, {
          conta: favorecido.contaBanco.conta,
          amountCents: row.amount_cents,
          payer: pagador,
          infoPagador: row.info_pagador,
          endToEndId: row.end_to_end_id,
        });
        await movePayment(sql, enrolment, row, 'aceito', null, now);
      },
      async (sql, motivo) => {
        const row = await findPayment(sql, { id: job.payload.paymentId }, true);
        if (row?.status !== 'pendente') return;
        const enrolment = (await findEnrolment(sql, { id: row.enrolment_id }))!;
        await movePayment(sql, enrolment, row, 'rejeitado', motivo, clock.forAccount(row.account_id).now());
      },
    );
    return { done: true };
  };
}
