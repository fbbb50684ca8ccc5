/**
 * What the application does with a Pix payment once started: cancel it (scheduled: before its date; recurring:
 * the whole payment or one parcel), refund a paid parcel (`devolver`: a refund of the received Pix through the
 * payment engine, as `PUT /v2/pix/:e2eid/devolucao/:id` makes, settled asynchronously), and replace a parcel of
 * a recurring payment (a new consent for that parcel: the old one is `substituido` once the payer authorises).
 */
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import type { Sql } from '../../platform/db/database.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';
import { formatAmount } from '../../platform/money.ts';
import { requestRefund } from '../../pix/received/service.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { consentUri } from '../consent/journey.ts';
import { enqueueOfCallback } from '../events.ts';
import { askedOfPayer, ofError } from '../shared.ts';
import { insertStarted } from './service.ts';
import { findParcel, findPixPayment, parcelsOf, type ParcelRow, type PixKind, type PixPaymentRow } from './store.ts';
import { movePixPayment, moveParcel } from './transitions.ts';

const KIND_TEXT: Record<PixKind, string> = {
  imediato: 'Pix',
  agendado: 'Pix agendado',
  recorrente: 'Pix recorrente',
  biometria: 'Pix por biometria',
};

const notFound = (what: string) => ofError(404, 'pagamento_nao_encontrado', `${what} não encontrado.`);

/** The caller's payment of one of `kinds`, locked. */
async function paymentOf(sql: Sql, caller: Caller, identificador: string, kinds: PixKind[]): Promise<PixPaymentRow> {
  const row = await findPixPayment(sql, { accountId: caller.accountId, identificador }, true);
  if (!row || !kinds.includes(row.kind)) throw notFound(`${KIND_TEXT[kinds[0]]} ${identificador}`);
  return row;
}

/** A parcel of the payment, locked after it (the lock order everywhere: payment, then parcel). */
async function parcelOf(sql: Sql, payment: PixPaymentRow, endToEndId: string): Promise<ParcelRow> {
  const parcel = await findParcel(sql, { accountId: payment.account_id, endToEndId }, true);
  if (parcel?.payment_id !== payment.id) throw notFound(`Pix ${endToEndId} do pagamento ${payment.identificador}`);
  return parcel;
}

const cancelled = (row: PixPaymentRow, now: Date, endToEndId?: string) => ({
  identificadorPagamento: row.identificador,
  status: 'cancelado',
  dataCancelamento: now.toISOString(),
  ...(endToEndId !== undefined && { endToEndId }),
});

const notCancellable = (status: string) =>
  ofError(
    422,
    'pagamento_nao_cancelavel',
    `O pagamento está ${status}: só um pagamento pendente ou agendado é cancelado.`,
  );

/** Cancels the payment and every parcel still waiting; each change is a callback. */
async function cancelWhole(sql: Sql, caller: Caller, row: PixPaymentRow) {
  if (row.status !== 'pendente' && row.status !== 'agendado') throw notCancellable(row.status);
  const motivo = 'Cancelado pelo recebedor.';
  const waiting = (await parcelsOf(sql, [row.id], true)).filter((p) => p.status === 'agendado');
  const asked = waiting.find((p) => p.payer_asked_at !== null);
  if (asked) throw askedOfPayer(asked.end_to_end_id);
  // The payment first: its parcels then see it cancelled and do not conclude it.
  const moved =
    row.kind === 'recorrente' || !waiting.length
      ? await movePixPayment(sql, row, 'cancelado', motivo, caller.now)
      : row;
  for (const parcel of waiting) await moveParcel(sql, moved, parcel, 'cancelado', motivo, caller.now);
  return cancelled(row, caller.now, row.kind === 'recorrente' ? undefined : waiting[0]?.end_to_end_id);
}

/** PATCH /v1/pagamentos-agendados/pix/:identificadorPagamento/cancelar: before its date (its Pix settles at 00:00). */
export async function cancelScheduled(sql: Sql, caller: Caller, identificador: string) {
  return cancelWhole(sql, caller, await paymentOf(sql, caller, identificador, ['agendado']));
}

/**
 * PATCH /v1/pagamentos-recorrentes/pix/:identificadorPagamento/cancelar: named by the payment, all its waiting
 * parcels; named by a parcel's end-to-end id, that parcel alone.
 */
export async function cancelRecurring(sql: Sql, caller: Caller, identificador: string) {
  if (!new RegExp(END_TO_END_ID_PATTERN).test(identificador))
    return cancelWhole(sql, caller, await paymentOf(sql, caller, identificador, ['recorrente']));
  const peek = await findParcel(sql, { accountId: caller.accountId, endToEndId: identificador });
  const payment = peek && (await findPixPayment(sql, { id: peek.payment_id }, true));
  if (payment?.kind !== 'recorrente') throw notFound(`Pix recorrente ${identificador}`);
  const parcel = await parcelOf(sql, payment, identificador);
  if (parcel.status !== 'agendado') throw notCancellable(parcel.status);
  if (parcel.payer_asked_at !== null) throw askedOfPayer(parcel.end_to_end_id);
  await moveParcel(sql, payment, parcel, 'cancelado', 'Cancelado pelo recebedor.', caller.now);
  return cancelled(payment, caller.now, identificador);
}

/** One refund of a paid parcel, through the engine's refund of the received Pix it became. */
async function refundParcel(sql: Sql, caller: Caller, payment: PixPaymentRow, endToEndId: string, valor: string) {
  const parcel = await parcelOf(sql, payment, endToEndId);
  if (parcel.status !== 'aceito')
    throw ofError(
      422,
      'pagamento_nao_devolvivel',
      `O Pix ${endToEndId} está ${parcel.status}: só um Pix aceito é devolvido.`,
    );
  const { view } = await requestRefund(sql, caller, endToEndId, `of${randomAlphanumeric(24)}`, { valor });
  const answer = {
    identificadorPagamento: payment.identificador,
    endToEndId,
    identificadorDevolucao: view.rtrId,
    valor: view.valor,
    dataCriacao: view.horario.solicitacao,
    status: 'pendente',
  };
  const { dataCriacao, ...body } = answer;
  await enqueueOfCallback(sql, caller.accountId, { tipo: 'devolucao', ...body, data: dataCriacao }, caller.now);
  return answer;
}

/** The payment's one parcel: a payment not yet paid has none to refund. */
async function onlyParcel(sql: Sql, payment: PixPaymentRow): Promise<string> {
  const [parcel] = await parcelsOf(sql, [payment.id]);
  if (!parcel)
    throw ofError(422, 'pagamento_nao_devolvivel', `O pagamento está ${payment.status}: não há Pix a devolver.`);
  return parcel.end_to_end_id;
}

/** POST /v1/pagamentos/pix/:identificadorPagamento/devolver (immediate and biometric payments). */
export async function refundImmediate(sql: Sql, caller: Caller, identificador: string, valor: string) {
  const payment = await paymentOf(sql, caller, identificador, ['imediato', 'biometria']);
  return refundParcel(sql, caller, payment, await onlyParcel(sql, payment), valor);
}

export async function refundScheduled(
  sql: Sql,
  caller: Caller,
  identificador: string,
  body: { endToEndId: string; valor: string },
) {
  const payment = await paymentOf(sql, caller, identificador, ['agendado']);
  return refundParcel(sql, caller, payment, body.endToEndId, body.valor);
}

/** Several parcels at once: all refunds are requested, or (one refused) none. */
export async function refundRecurring(
  sql: Sql,
  caller: Caller,
  identificador: string,
  devolucoes: { endToEndId: string; valor: string }[],
) {
  const payment = await paymentOf(sql, caller, identificador, ['recorrente']);
  const answers = [];
  for (const d of devolucoes) answers.push(await refundParcel(sql, caller, payment, d.endToEndId, d.valor));
  return answers;
}

/**
 * PATCH /v1/pagamentos-recorrentes/pix/:identificadorPagamento/substituir/:endToEndId: a parcel still waiting,
 * or refused, is replaced by a new payment of one parcel (the amount given, or the old one's), on the old
 * date or tomorrow if that has passed, which the payer authorises at a new consent link.
 */
export async function replaceParcel(
  sql: Sql,
  caller: Caller,
  params: { identificadorPagamento: string; endToEndId: string },
  valor: string | undefined,
  options: { sandbox: boolean; idempotencyKey?: string },
) {
  const answer = (row: PixPaymentRow) => ({
    identificadorPagamento: row.identificador,
    redirectURI: consentUri(caller.publicUrl, row.consent_token!),
  });
  if (options.idempotencyKey !== undefined) {
    const earlier = await findPixPayment(sql, { accountId: caller.accountId, idempotencyKey: options.idempotencyKey });
    if (earlier) return answer(earlier);
  }
  const payment = await paymentOf(sql, caller, params.identificadorPagamento, ['recorrente']);
  const parcel = await parcelOf(sql, payment, params.endToEndId);
  if (parcel.status !== 'agendado' && parcel.status !== 'rejeitado')
    throw ofError(
      422,
      'parcela_nao_substituivel',
      `O Pix ${parcel.end_to_end_id} está ${parcel.status}: só um Pix agendado ou rejeitado é substituído.`,
    );
  const tomorrow = fromEpochDay(toEpochDay(brasiliaDate(caller.now)) + 1);
  const body = {
    ...payment.body,
    pagamento: { ...payment.body.pagamento, valor: valor ?? formatAmount(parcel.amount_cents) },
  };
  const row = await insertStarted(sql, caller, 'recorrente', body, {
    ...options,
    replaces: { parcelId: parcel.id, data: parcel.data > tomorrow ? parcel.data : tomorrow },
  });
  return answer(row);
}
