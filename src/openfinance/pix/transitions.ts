/**
 * A Pix payment's life after creation: the payer authorises it (its parcels are written, each settled by an
 * outbox job at 00:00 Brasília of its date on the account's clock, at once when that is today or past) or
 * declines it (`rejeitado`), or its link expires (`expirado`); each parcel is then paid or refused by the
 * payer's institution (../settle.ts), or cancelled. Every status change is a callback to the application, in its
 * transaction: a payment's, carrying the end-to-end id when it has one parcel; a recurring payment's parcels
 * each their own.
 */
import { brasiliaDayStart } from '../../platform/calendar.ts';
import type { Sql } from '../../platform/db/database.ts';
import type { AppContext } from '../../platform/context.ts';
import { newEndToEndId } from '../../platform/institution.ts';
import { formatAmount } from '../../platform/money.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { consentExpiryHandler, EXPIRED_LINK_REASON, type ClockOf } from '../consent/journey.ts';
import { enqueueOfCallback } from '../events.ts';
import { findParticipant } from '../participants/store.ts';
import { settleThroughPayer } from '../settle.ts';
import { askedOfPayerMotivo } from '../shared.ts';
import {
  findParcel,
  findPixPayment,
  insertParcel,
  markAuthorised,
  markParcelAsked,
  parcelsOf,
  setParcelStatus,
  setPixPaymentStatus,
  type ParcelRow,
  type ParcelStatus,
  type PixPaymentRow,
  type PixPaymentStatus,
} from './store.ts';

const MOVES: Record<PixPaymentStatus, readonly PixPaymentStatus[]> = {
  pendente: ['agendado', 'aceito', 'rejeitado', 'cancelado', 'expirado'],
  agendado: ['aceito', 'rejeitado', 'cancelado', 'concluido'],
  aceito: [],
  rejeitado: [],
  cancelado: [],
  expirado: [],
  concluido: [],
};

/** A payment of one parcel: its status is its parcel's, and its callback names the parcel's end-to-end id. */
export const singleParcel = (row: PixPaymentRow) => row.kind !== 'recorrente';

export async function movePixPayment(
  sql: Sql,
  row: PixPaymentRow,
  status: PixPaymentStatus,
  motivo: string | null,
  now: Date,
  endToEndId?: string,
): Promise<PixPaymentRow> {
  if (!MOVES[row.status].includes(status)) throw new Error(`payment ${row.identificador}: ${row.status} -> ${status}`);
  const moved = await setPixPaymentStatus(sql, row.id, status, motivo, now);
  await enqueueOfCallback(
    sql,
    row.account_id,
    {
      tipo: 'pagamento',
      identificadorPagamento: row.identificador,
      ...(row.id_proprio !== null && { idProprio: row.id_proprio }),
      ...(endToEndId !== undefined && { endToEndId }),
      valor: formatAmount(row.amount_cents),
      status,
      ...(motivo !== null && { motivo }),
      data: now.toISOString(),
    },
    now,
  );
  return moved;
}

/**
 * A parcel's change, and what it makes of its payment: a one-parcel payment takes the parcel's status; a
 * recurring one is `concluido` once no parcel waits, and each parcel's change is a callback of its own.
 */
export async function moveParcel(
  sql: Sql,
  payment: PixPaymentRow,
  parcel: ParcelRow,
  status: ParcelStatus,
  motivo: string | null,
  now: Date,
): Promise<void> {
  await setParcelStatus(sql, parcel.id, status, motivo, now);
  if (singleParcel(payment)) {
    if (status === 'aceito' || status === 'rejeitado' || status === 'cancelado')
      await movePixPayment(sql, payment, status, motivo, now, parcel.end_to_end_id);
    return;
  }
  await enqueueOfCallback(
    sql,
    payment.account_id,
    {
      tipo: 'pagamento',
      identificadorPagamento: payment.identificador,
      endToEndId: parcel.end_to_end_id,
      valor: formatAmount(parcel.amount_cents),
      status,
      ...(motivo !== null && { motivo }),
      data: now.toISOString(),
    },
    now,
  );
  if (payment.status !== 'agendado') return;
  const waiting = (await parcelsOf(sql, [payment.id])).some((p) => p.status === 'agendado');
  if (!waiting) await movePixPayment(sql, payment, 'concluido', null, now);
}

type SettleJob = { parcelId: number };

export const PARCEL_SETTLE_TOPIC = defineTopic<SettleJob, AppContext>({
  name: 'of.pix.settle',
  handler: (ctx) => settleHandler(ctx),
});

function enqueueParcel(sql: Sql, parcel: ParcelRow, now: Date) {
  const at = brasiliaDayStart(parcel.data);
  return enqueue(sql, {
    topic: PARCEL_SETTLE_TOPIC,
    payload: { parcelId: parcel.id },
    accountId: parcel.account_id,
    availableAt: at > now ? at : now,
    now,
  });
}

/** The payer authorised `row` (at the page, or by a biometric link): its parcels are written and scheduled. */
export async function authorise(sql: Sql, row: PixPaymentRow, now: Date, sandbox: boolean): Promise<void> {
  const authorised = await markAuthorised(sql, row.id, now);
  const participant = await findParticipant(sql, sandbox, row.body.pagador.idParticipante);
  if (row.replaces_parcel_id !== null) {
    // Lock order: the payment, then its parcel (as settlement and cancellation lock them).
    const peek = (await findParcel(sql, { id: row.replaces_parcel_id }))!;
    const parent = (await findPixPayment(sql, { id: peek.payment_id }, true))!;
    const replaced = (await findParcel(sql, { id: peek.id }, true))!;
    const refusal =
      replaced.status !== 'agendado' && replaced.status !== 'rejeitado'
        ? `A parcela ${replaced.end_to_end_id} já está ${replaced.status}.`
        : replaced.status === 'agendado' && replaced.payer_asked_at !== null
          ? askedOfPayerMotivo(replaced.end_to_end_id)
          : undefined;
    if (refusal !== undefined) {
      await movePixPayment(sql, authorised, 'rejeitado', refusal, now);
      return;
    }
    await moveParcel(sql, parent, replaced, 'substituido', `Substituída pelo pagamento ${row.identificador}.`, now);
  }
  for (const data of row.dates) {
    // The payer's institution sends the Pix: the end-to-end id carries its ISPB.
    const parcel = await insertParcel(sql, {
      payment_id: row.id,
      account_id: row.account_id,
      end_to_end_id: newEndToEndId(now, participant?.ispb),
      amount_cents: row.amount_cents,
      data,
      created_at: now,
    });
    await enqueueParcel(sql, parcel, now);
  }
  // An immediate payment stays `pendente` until its Pix settles, moments later; a dated one is `agendado`.
  if (row.kind === 'agendado' || row.kind === 'recorrente')
    await movePixPayment(sql, authorised, 'agendado', null, now);
}

function settleHandler(ctx: AppContext) {
  const lockBoth = async (sql: Sql, parcelId: number) => {
    // Lock order: the payment, then its parcel (as cancellation does).
    const peek = await findParcel(sql, { id: parcelId });
    if (!peek) return undefined;
    const payment = (await findPixPayment(sql, { id: peek.payment_id }, true))!;
    const parcel = (await findParcel(sql, { id: parcelId }, true))!;
    return parcel.status === 'agendado' ? { payment, parcel } : undefined;
  };
  return async (job: OutboxJob<SettleJob>): Promise<JobOutcome> => {
    await settleThroughPayer(ctx, {
      ask: async (sql) => {
        const locked = await lockBoth(sql, job.payload.parcelId);
        if (!locked) return undefined;
        const { payment, parcel } = locked;
        const now = ctx.clock.forAccount(parcel.account_id).now();
        await markParcelAsked(sql, parcel.id, now);
        return {
          conta: payment.receiver_conta,
          amountCents: parcel.amount_cents,
          payer: payment.body.pagador,
          infoPagador: payment.body.pagamento.infoPagador ?? null,
          endToEndId: parcel.end_to_end_id,
          now,
        };
      },
      answer: async (sql, outcome) => {
        const locked = await lockBoth(sql, job.payload.parcelId);
        if (!locked) return;
        const now = ctx.clock.forAccount(locked.parcel.account_id).now();
        if ('paid' in outcome) await moveParcel(sql, locked.payment, locked.parcel, 'aceito', null, now);
        else await moveParcel(sql, locked.payment, locked.parcel, 'rejeitado', outcome.refused, now);
      },
    });
    return { done: true };
  };
}

/** A pending link past its deadline (on the account's clock) expires the payment: the clock decides. */
export async function expirePixIfDue(sql: Sql, row: PixPaymentRow, now: Date): Promise<PixPaymentRow> {
  if (row.status !== 'pendente' || row.authorised_at !== null || row.consent_expires_at === null) return row;
  if (now < row.consent_expires_at) return row;
  return movePixPayment(sql, row, 'expirado', EXPIRED_LINK_REASON, now);
}

export const PIX_CONSENT_EXPIRY_TOPIC = defineTopic<{ id: number }>({
  name: 'of.pix.consent.expire',
  handler: consentExpiryHandler(async (sql, id, now: ClockOf) => {
    const row = await findPixPayment(sql, { id }, true);
    if (row) await expirePixIfDue(sql, row, now(row.account_id));
  }),
});
