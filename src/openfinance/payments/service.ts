/**
 * Automatic payments: created `pendente` within the enrolment's rules, settled on their date by
 * settlement.ts, cancelled by the application while pending, read per enrolment.
 */
import type { Sql } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { newEndToEndId } from '../../platform/institution.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount, parseAmount } from '../../platform/money.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { enrolmentNotFound } from '../enrolments/service.ts';
import { findEnrolment, type EnrolmentRow } from '../enrolments/store.ts';
import { expireIfDue } from '../enrolments/transitions.ts';
import { findParticipant } from '../participants/store.ts';
import { askedOfPayer, ofError, ofInvalid } from '../shared.ts';
import type { PaymentBody, PaymentCancel, PaymentListQuery, PaymentView } from './schemas.ts';
import { amountRefusal, dateRefusal, periodOf } from './rules.ts';
import { enqueueSettlement, movePayment } from './settlement.ts';
import { findPayment, insertPayment, listPayments, refundsOf, type PaymentRow } from './store.ts';

const INVALID = 'pagamento_invalido';

async function enrolmentOf(sql: Sql, caller: Caller, identificador: string, lock: boolean): Promise<EnrolmentRow> {
  const row = await findEnrolment(sql, { accountId: caller.accountId, identificador }, lock);
  if (!row) throw enrolmentNotFound(identificador);
  return lock ? expireIfDue(sql, row, caller.now) : row;
}

/**
 * A payment of an authorised enrolment, in the caller's transaction (the enrolment is locked so a revocation
 * and a payment are ordered). `first`: the enrolment's own first payment, whose amount it set itself.
 */
export async function schedulePayment(
  sql: Sql,
  caller: Caller,
  enrolment: EnrolmentRow,
  pagamento: PaymentBody['pagamento'],
  sandbox: boolean,
  options: { first?: boolean; idempotencyKey?: string } = {},
): Promise<PaymentRow> {
  const first = options.first === true;
  if (enrolment.status !== 'autorizado')
    throw ofError(
      422,
      'adesao_nao_autorizada',
      `A adesão ${enrolment.identificador} está ${enrolment.status}: não aceita pagamentos.`,
    );
  const amountCents = parseAmount(pagamento.valor);
  if (amountCents <= 0) throw ofInvalid(INVALID, 'pagamento.valor', 'deve ser maior que zero.');
  const amountProblem = first ? undefined : amountRefusal(enrolment.body, amountCents);
  if (amountProblem) throw ofInvalid(INVALID, 'pagamento.valor', amountProblem);
  const dateProblem = dateRefusal(enrolment.body, pagamento.data, brasiliaDate(caller.now), first);
  if (dateProblem) throw ofInvalid(INVALID, 'pagamento.data', dateProblem);
  const auto = enrolment.body.assinatura.configuracao.automatico;
  const participant = await findParticipant(sql, sandbox, enrolment.body.pagador.idParticipante);
  // The payer's institution is the one that sends the Pix: the end-to-end id carries its ISPB.
  const endToEndId = newEndToEndId(caller.now, participant?.ispb);
  let row: PaymentRow | undefined;
  try {
    row = await sql.atomic((tx) =>
      insertPayment(tx, {
        enrolment_id: enrolment.id,
        account_id: enrolment.account_id,
        end_to_end_id: endToEndId,
        amount_cents: amountCents,
        data: pagamento.data,
        period: periodOf(auto.intervalo, auto.dataInicio, pagamento.data),
        info_pagador: pagamento.infoPagador ?? null,
        codigo_cidade_ibge: pagamento.codigoCidadeIBGE ?? null,
        idempotency_key: options.idempotencyKey ?? null,
        created_at: caller.now,
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error))
      throw ofError(
        422,
        'pagamento_periodo_ocupado',
        `Já existe um pagamento pendente ou aceito neste período (${auto.intervalo}) da adesão: pagamento.data.`,
      );
    throw error;
  }
  // A concurrent twin under the same idempotency key made it: that one is the answer, already scheduled.
  if (!row) return (await findPayment(sql, { accountId: caller.accountId, idempotencyKey: options.idempotencyKey! }))!;
  await movePayment(sql, enrolment, row, 'pendente', null, caller.now);
  await enqueueSettlement(sql, row, caller.now);
  return row;
}

/** `idempotencyKey`: a second request under the same key answers the first one's payment and creates nothing. */
export async function createPayment(
  sql: Sql,
  caller: Caller,
  body: PaymentBody,
  sandbox: boolean,
  idempotencyKey?: string,
) {
  const earlier =
    idempotencyKey === undefined ? undefined : await findPayment(sql, { accountId: caller.accountId, idempotencyKey });
  if (earlier) {
    const of = (await findEnrolment(sql, { id: earlier.enrolment_id }))!;
    return {
      identificadorAdesao: of.identificador,
      endToEndId: earlier.end_to_end_id,
      status: earlier.status,
      data: earlier.data,
    };
  }
  const enrolment = await enrolmentOf(sql, caller, body.identificadorAdesao, true);
  const row = await schedulePayment(sql, caller, enrolment, body.pagamento, sandbox, { idempotencyKey });
  return {
    identificadorAdesao: enrolment.identificador,
    endToEndId: row.end_to_end_id,
    status: row.status,
    data: row.data,
  };
}

export async function cancelPayment(sql: Sql, caller: Caller, body: PaymentCancel) {
  const enrolment = await enrolmentOf(sql, caller, body.identificadorAdesao, false);
  const row = await findPayment(sql, { enrolmentId: enrolment.id, endToEndId: body.endToEndId }, true);
  if (!row) throw ofError(404, 'pagamento_nao_encontrado', `Pagamento ${body.endToEndId} não encontrado nesta adesão.`);
  if (row.status !== 'pendente')
    throw ofError(
      422,
      'pagamento_nao_cancelavel',
      `O pagamento está ${row.status}: só um pagamento pendente é cancelado.`,
    );
  if (row.payer_asked_at !== null) throw askedOfPayer(row.end_to_end_id);
  const moved = await movePayment(
    sql,
    enrolment,
    row,
    'cancelado',
    body.motivo ?? 'Cancelado pelo recebedor.',
    caller.now,
  );
  return {
    identificadorAdesao: enrolment.identificador,
    ...(enrolment.id_proprio !== null && { idProprio: enrolment.id_proprio }),
    endToEndId: moved.end_to_end_id,
    valor: formatAmount(moved.amount_cents),
    status: moved.status,
    motivo: moved.motivo!,
    dataCriacao: moved.created_at.toISOString(),
  };
}

/** The enrolment a query names: by its id, or as the one its payment `endToEndId` belongs to. */
async function namedEnrolment(sql: Sql, caller: Caller, query: PaymentListQuery): Promise<EnrolmentRow | undefined> {
  if (query.identificadorAdesao !== undefined) return enrolmentOf(sql, caller, query.identificadorAdesao, false);
  if (query.endToEndId === undefined) return undefined;
  const [payment] = await listPayments(sql, { accountId: caller.accountId, endToEndId: query.endToEndId }, 1);
  if (!payment) throw ofError(404, 'pagamento_nao_encontrado', `Pagamento ${query.endToEndId} não encontrado.`);
  return findEnrolment(sql, { id: payment.enrolment_id });
}

/**
 * Payments by enrolment, payment, status or period (the interface: "by payment, status or criteria in a
 * period"), any criterion alone. A query that names one enrolment answers its fields around its payments.
 */
export async function readPayments(sql: Sql, caller: Caller, query: PaymentListQuery) {
  const { identificadorAdesao, endToEndId, status, inicio, fim } = query;
  if ([identificadorAdesao, endToEndId, status, inicio, fim].every((value) => value === undefined))
    throw ofInvalid(
      'parametro_invalido',
      'identificadorAdesao',
      'informe identificadorAdesao, endToEndId, status ou o período (inicio, fim).',
    );
  if (inicio !== undefined && fim !== undefined && inicio > fim)
    throw ofInvalid('parametro_invalido', 'inicio', 'posterior a fim.');
  const enrolment = await namedEnrolment(sql, caller, query);
  const rows = await listPayments(
    sql,
    { accountId: caller.accountId, enrolmentId: enrolment?.id, endToEndId, status, inicio, fim },
    LIMITS.ofPaymentsListedMax,
  );
  const refunds = await refundsOf(
    sql,
    rows.filter((r) => r.status === 'aceito').map((r) => r.end_to_end_id),
  );
  const pagamentos = rows.map((row): PaymentView => {
    const own = refunds.filter((r) => r.end_to_end_id === row.end_to_end_id);
    return {
      identificadorAdesao: row.identificador,
      ...(row.id_proprio !== null && { idProprio: row.id_proprio }),
      endToEndId: row.end_to_end_id,
      valor: formatAmount(row.amount_cents),
      status: row.status,
      data: row.data,
      dataCriacao: row.created_at.toISOString(),
      ...(row.info_pagador !== null && { infoPagador: row.info_pagador }),
      ...(row.motivo !== null && { motivo: row.motivo }),
      ...(own.length && {
        devolucoes: own.map((r) => ({
          identificadorDevolucao: r.rtr_id,
          valor: formatAmount(r.amount_cents),
          status: r.status === 'DEVOLVIDO' ? 'aceito' : r.status === 'NAO_REALIZADO' ? 'rejeitado' : 'pendente',
          dataCriacao: r.requested_at.toISOString(),
        })),
      }),
    };
  });
  if (!enrolment) return { pagamentos };
  const { descricao } = enrolment.body.assinatura;
  return {
    identificadorAdesao: enrolment.identificador,
    ...(enrolment.id_proprio !== null && { idProprio: enrolment.id_proprio }),
    status: enrolment.status,
    ...(descricao !== undefined && { descricao }),
    pagamentos,
  };
}
