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
import { receivePix } from '../../pix/payments/engine.ts';
import { PaymentRefused } from '../../pix/payments/refusal.ts';
import { enqueueOfCallback } from '../events.ts';
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

class Refused extends Error {}

function settleHandler(db: Database, clock: Clock, payerInstitution: PayerInstitution) {
  return async (job: OutboxJob<SettleJob>): Promise<JobOutcome> => {
    try {
      await db.tx(async (sql) => {
        const row = await findPayment(sql, { id: job.payload.paymentId }, true);
        if (row?.status !== 'pendente') return;
        const enrolment = (await findEnrolment(sql, { id: row.enrolment_id }))!;
        const now = clock.forAccount(row.account_id).now();
        if (enrolment.status !== 'autorizado')
          throw new Refused(`A adesão está ${enrolment.status}: o pagamento não foi feito.`);
        const decision = payerInstitution.openFinancePaymentDue({ amountCents: row.amount_cents });
        if ('refused' in decision) throw new Refused(decision.refused);
        const { pagador, favorecido } = enrolment.body;
        await receivePix(sql, now, {
          target: { kind: 'account', conta: favorecido.contaBanco.conta },
          amountCents: row.amount_cents,
          payer: {
            nome: pagador.nome ?? 'Pagador',
            ...(pagador.cpf && { cpf: pagador.cpf }),
            ...(pagador.cnpj && { cnpj: pagador.cnpj }),
          },
          ...(row.info_pagador !== null && { infoPagador: row.info_pagador }),
          origin: 'open_finance',
          endToEndId: row.end_to_end_id,
        });
        await movePayment(sql, enrolment, row, 'aceito', null, now);
      });
    } catch (error) {
      if (error instanceof Refused || error instanceof PaymentRefused)
        await refuse(db, clock, job.payload, error.message);
      else throw error;
    }
    return { done: true };
  };
}

async function refuse(db: Database, clock: Clock, job: SettleJob, motivo: string) {
  await db.tx(async (sql) => {
    const row = await findPayment(sql, { id: job.paymentId }, true);
    if (row?.status !== 'pendente') return;
    const enrolment = (await findEnrolment(sql, { id: row.enrolment_id }))!;
    await movePayment(sql, enrolment, row, 'rejeitado', motivo.slice(0, 400), clock.forAccount(row.account_id).now());
  });
}
