/**
 * Paying bills (docs/bill-payments.md): decode a barcode and say what paying it asks, pay it from the account's
 * balance (the amount held at once, paid on its date by settlement.ts), read a payment, summarise a period.
 * A boleto this pixd issued is found and paid on us (on-us.ts); any other bill is its institution's
 * (`BillInstitution`: the sandbox simulates one, production has no connector and refuses by name).
 */
import { brasiliaDate, brasiliaDayStart, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import { ApiError } from '../../platform/errors.ts';
import type { BillInstitution, ExternalBill } from '../../platform/extensions.ts';
import { BarcodeError, parseBill, type ParsedBill } from '../../platform/febraban.ts';
import { balanceCents, ledgerCode, lockCustomer, transfer } from '../../platform/ledger/ledger.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount } from '../../platform/money.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { findOnUsBoleto, type OnUsBoleto } from './on-us.ts';
import type { BarcodeDetail, PayBody, SummaryQuery } from './schemas.ts';
import { enqueueSettlement, movePayment, paymentView } from './settlement.ts';
import { findBillPayment, insertBillPayment, paymentsRequested } from './store.ts';

/** The bank code of the boletos this pixd issues is the boletos module's; its name as a payer reads it. */
const ON_US_BANK_NAME = 'pixd';

const invalid = (field: string, reason: string) =>
  new ApiError(400, 'pagamento_invalido', `${field}: ${reason}`, [{ property: field, reason }]);

/** Any of the four forms of a bill code, or a 400 naming what is wrong with it. */
function parseCode(codBarras: string, today: string): ParsedBill {
  try {
    return parseBill(codBarras, today);
  } catch (error) {
    if (!(error instanceof BarcodeError)) throw error;
    throw new ApiError(
      400,
      'codigo_barras_invalido',
      `Código de barras inválido (${error.defect}): ${error.message}.`,
      [{ property: 'codBarras', reason: error.defect }],
    );
  }
}

const externalBill = (bill: ParsedBill): ExternalBill => ({
  tipo: bill.kind === 'bank' ? 'boleto' : 'tributo',
  barcode: bill.barcode,
  // A bank boleto's zero is "the payer informs the amount"; an arrecadação reference quantity is no amount.
  amountCents: bill.amountCents || null,
});

/** The pixd boleto behind a bank barcode, as paying it on `date` asks. */
const onUs = (sql: Sql, bill: ParsedBill, date: string): Promise<OnUsBoleto | undefined> =>
  bill.kind === 'bank' ? findOnUsBoleto(sql, bill.barcode, date) : Promise.resolve(undefined);

export async function detailBarcode(
  sql: Sql,
  caller: Caller,
  institution: BillInstitution,
  codBarras: string,
): Promise<BarcodeDetail> {
  const today = brasiliaDate(caller.now);
  const bill = parseCode(codBarras, today);
  if (bill.kind === 'arrecadacao') {
    const cents = bill.amountCents ?? 0;
    return {
      tipo: 'tributo',
      banco: null,
      codBarras: bill.barcode,
      linhaDigitavel: bill.linhaDigitavel,
      // The arrecadação layout carries no due date (a utility may print one in its free field, its own way).
      datas: { vencimento: null, limitePagamento: null },
      beneficiario: null,
      pagador: null,
      sacadorAvalista: null,
      segmento: bill.segment,
      identificacaoEmpresa: bill.companyId,
      valores: { original: cents, abatimento: null, pago: null, final: cents },
      informacoesPagamento: null,
    };
  }
  const own = await onUs(sql, bill, today);
  const registry = own ? undefined : institution.describe(externalBill(bill));
  const original = own ? own.components.original : bill.amountCents;
  const final = own ? own.amountCents : bill.amountCents;
  return {
    tipo: 'boleto',
    banco: { codigo: Number(bill.bankCode), nome: own ? ON_US_BANK_NAME : `Banco ${bill.bankCode}` },
    codBarras: bill.barcode,
    linhaDigitavel: bill.linhaDigitavel,
    datas: { vencimento: own ? own.dueDate : bill.dueDate, limitePagamento: null },
    beneficiario: own ? { ...own.beneficiary, fantasia: own.beneficiary.nome } : (registry?.beneficiario ?? null),
    pagador: own ? own.payer : (registry?.pagador ?? null),
    valores: {
      original,
      abatimento: 0,
      multa: own?.components.multa ?? 0,
      juros: own?.components.juros ?? 0,
      desconto: own?.components.desconto ?? 0,
      final,
    },
    informacoesPagamento: {
      // pixd pays the amount due, whole: a different or a partial amount is refused (valor_divergente).
      divergente: { deveAceitar: final === 0, valorMinimo: final, valorMaximo: final },
      parcial: { deveAceitar: false, limiteDePagamentos: 1 },
      podeSerPago: own ? own.payable : registry !== null,
    },
  };
}

/** The amount a payment must be of, or the refusal of paying this bill at all. */
function requiredAmount(bill: ParsedBill, own: OnUsBoleto | undefined, date: string): number | undefined {
  if (own) {
    if (!own.payable)
      throw new ApiError(422, 'boleto_nao_pagavel', 'O boleto não pode mais ser pago (pago, baixado ou cancelado).');
    return own.amountCents;
  }
  if (bill.kind === 'arrecadacao' && bill.amountCents === null)
    throw new ApiError(
      422,
      'valor_nao_suportado',
      `A conta informa o valor em quantidade de referência (identificador ${bill.valueIdentifier}), que esta instituição não converte em reais em ${date}.`,
    );
  // Zero on a bank boleto: the payer informs the amount.
  return bill.amountCents || undefined;
}

export async function requestPayment(
  sql: Sql,
  caller: Caller,
  institution: BillInstitution,
  codBarras: string,
  body: PayBody,
) {
  const today = brasiliaDate(caller.now);
  const bill = parseCode(codBarras, today);
  const date = body.dataPagamento;
  if (date < today) throw invalid('dataPagamento', `anterior a hoje (${today}).`);
  if (toEpochDay(date) - toEpochDay(today) > LIMITS.billPaymentScheduleMaxDays)
    throw invalid('dataPagamento', `posterior a ${LIMITS.billPaymentScheduleMaxDays} dias de hoje.`);
  const own = await onUs(sql, bill, date);
  const required = requiredAmount(bill, own, date);
  if (required !== undefined && body.valor !== required)
    throw new ApiError(
      422,
      'valor_divergente',
      `O valor a pagar em ${date} é ${formatAmount(required)}; esta conta não aceita outro valor (valor em centavos: ${required}).`,
    );
  if (!own) {
    const decision = institution.accept({ ...externalBill(bill), paidCents: body.valor });
    if ('refused' in decision) throw new ApiError(422, 'pagamento_recusado', decision.refused);
  }
  // Serialises the account's money movements: the balance read here is the one the hold debits.
  await lockCustomer(sql, caller.accountId);
  const available = await balanceCents(sql, ledgerCode.available(caller.accountId));
  if (available < body.valor)
    throw new ApiError(
      400,
      'saldo_insuficiente',
      `Saldo disponível (${formatAmount(available)}) insuficiente para pagar ${formatAmount(body.valor)}.`,
    );
  const row = await insertBillPayment(sql, {
    account_id: caller.accountId,
    tipo: bill.kind === 'bank' ? 'boleto' : 'tributo',
    barcode: bill.barcode,
    linha_digitavel: bill.linhaDigitavel,
    amount_cents: body.valor,
    payment_date: date,
    descricao: body.descricao ?? null,
    status: date === today ? 'EM_PROCESSAMENTO' : 'AGENDADO',
    on_us_charge_id: own?.chargeId ?? null,
    requested_at: caller.now,
  });
  if (!row)
    throw new ApiError(
      409,
      'pagamento_duplicado',
      'Este código de barras já tem um pagamento solicitado ou realizado.',
    );
  await transfer(sql, {
    kind: 'pagamento_conta_reserva',
    reference: `bill_payment:${row.id}`,
    accountId: caller.accountId,
    at: caller.now,
    from: ledgerCode.available(caller.accountId),
    to: ledgerCode.bills(caller.accountId),
    amountCents: body.valor,
  });
  await movePayment(sql, row, row.status, caller.now);
  await enqueueSettlement(sql, row, caller.now);
  return {
    idPagamento: String(row.id),
    valorPago: row.amount_cents,
    status: row.status,
    data: { solicitacao: row.requested_at.toISOString(), pagamento: row.payment_date },
  };
}

export async function readPayment(db: Database, caller: Caller, idPagamento: string) {
  const row = await findBillPayment(db, Number(idPagamento), { accountId: caller.accountId });
  if (!row) throw new ApiError(404, 'pagamento_nao_encontrado', `Pagamento ${idPagamento} não encontrado.`);
  return paymentView(row);
}

/** The account's requests made from dataInicio to dataFim (Brasília dates, both included), by outcome. */
export async function summarise(db: Database, caller: Caller, query: SummaryQuery) {
  const { dataInicio, dataFim } = query;
  if (dataFim < dataInicio) throw new ApiError(400, 'data_invalida', 'dataFim é anterior a dataInicio.');
  if (toEpochDay(dataFim) - toEpochDay(dataInicio) >= LIMITS.billPaymentSummaryRangeMaxDays)
    throw new ApiError(
      400,
      'data_invalida',
      `O período cobre no máximo ${LIMITS.billPaymentSummaryRangeMaxDays} dias.`,
    );
  const rows = await paymentsRequested(
    db,
    caller.accountId,
    brasiliaDayStart(dataInicio),
    brasiliaDayStart(fromEpochDay(toEpochDay(dataFim) + 1)),
  );
  const count = (...statuses: string[]) => rows.filter((r) => statuses.includes(r.status)).length;
  return {
    datas: { inicial: dataInicio, final: dataFim },
    solicitacoes: {
      total: rows.length,
      processando: count('EM_PROCESSAMENTO', 'AGENDADO', 'EXECUTADO'),
      sucesso: count('LIQUIDADO'),
      falha: count('NAO_REALIZADO'),
      cancelada: count('CANCELADO'),
    },
    solicitacoesFalhas: rows.filter((r) => r.status === 'NAO_REALIZADO').map((r) => r.id),
  };
}
