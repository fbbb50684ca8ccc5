/**
 * Recurring charges of automatic Pix (Bacen /cobr): creation for an approved recurrence within its calendar,
 * window and amount rules, the receiver's cancellation, retries, reads and lists. Every change records
 * `atualizacao`/`tentativas` and enqueues the `/cobr` webhook in the same transaction; settlement on the due
 * date is ./settlement.ts. No HTTP here.
 */
import { findAccount } from '../../accounts/store.ts';
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound, type Violation } from '../../platform/errors.ts';
import { newTxid } from '../../platform/ids.ts';
import { RECEIVER_ISPB, newEndToEndId } from '../../platform/institution.ts';
import { LIMITS } from '../../platform/limits.ts';
import { parseAmount } from '../../platform/money.ts';
import { brasiliaDate, brasiliaDayStart, fromEpochDay, nextBusinessDay, toEpochDay } from '../../platform/calendar.ts';
import { findRec } from '../rec/store.ts';
import type { Caller } from '../shared/caller.ts';
import { paginacao } from '../shared/schemas.ts';
import type { CobrCompleta, CobrCreate, CobrListQuery } from './schemas.ts';
import { cobrView, notifyCobr, saveCobr, withAttemptStatus, withStatus } from './events.ts';
import { enqueueAccountEvent } from '../webhook/events.ts';
import { enqueueAttempt, enqueueAcknowledgement, enqueueExpiry } from './settlement.ts';
import { findCobr, findCobrById, insertCobr, latestCobr, listCobrs, type CobrRow, type TentativaRow } from './store.ts';

export const COBR_INVALID = 'CobROperacaoInvalida';
export const COBR_QUERY_INVALID = 'CobRConsultaInvalida';
export const COBR_NOT_FOUND = 'CobRNaoEncontrado';

const refuse = (reason: string, property: string, value?: unknown) =>
  invalid(COBR_INVALID, 'A requisição não respeita o schema ou está semanticamente errada.', [
    { property, reason, ...(value !== undefined && { value }) },
  ]);

export async function createCobr(
  sql: Sql,
  caller: Caller,
  txid: string | undefined,
  body: CobrCreate,
): Promise<CobrCompleta> {
  const rec = await findRec(sql, caller.accountId, body.idRec, true);
  if (!rec) throw refuse(`A recorrência ${body.idRec} não existe.`, 'cobr.idRec', body.idRec);
  if (rec.status !== 'APROVADA')
    throw refuse(`A recorrência ${body.idRec} está ${rec.status}, não APROVADA.`, 'cobr.idRec', body.idRec);
  const asked = body.calendario.dataDeVencimento;
  const ajuste = body.ajusteDiaUtil ?? true;
  const due = ajuste ? fromEpochDay(nextBusinessDay(toEpochDay(asked))) : asked;
  const { dataInicial, dataFinal } = rec.body.calendario;
  if (due < dataInicial || (dataFinal !== undefined && due > dataFinal))
    throw refuse(
      `A data de vencimento ${due} está fora do calendário da recorrência (${dataInicial} a ${dataFinal ?? 'indeterminado'}).`,
      'cobr.calendario.dataDeVencimento',
      asked,
    );
  const daysBefore = toEpochDay(due) - toEpochDay(brasiliaDate(caller.now));
  if (daysBefore < LIMITS.cobrCreateMinDaysBefore || daysBefore > LIMITS.cobrCreateMaxDaysBefore)
    throw refuse(
      `A cobrança deve ser criada de ${LIMITS.cobrCreateMaxDaysBefore} a ${LIMITS.cobrCreateMinDaysBefore} dias antes do vencimento.`,
      'cobr.calendario.dataDeVencimento',
      asked,
    );
  const cents = parseAmount(body.valor.original);
  const { valorRec, valorMinimoRecebedor } = rec.body.valor ?? {};
  if (cents <= 0) throw refuse('O valor deve ser positivo.', 'cobr.valor.original', body.valor.original);
  if (valorRec !== undefined && cents !== parseAmount(valorRec))
    throw refuse(
      `O valor deve ser o valor fixo da recorrência, ${valorRec}.`,
      'cobr.valor.original',
      body.valor.original,
    );
  if (valorMinimoRecebedor !== undefined && cents < parseAmount(valorMinimoRecebedor))
    throw refuse(
      `O valor é menor que o valor mínimo da recorrência, ${valorMinimoRecebedor}.`,
      'cobr.valor.original',
      body.valor.original,
    );
  const account = await findAccount(sql, caller.accountId);
  if (account?.conta !== body.recebedor.conta)
    throw refuse('A conta do recebedor não é a conta da aplicação.', 'cobr.recebedor.conta', body.recebedor.conta);
  const tentativa: TentativaRow = {
    dataLiquidacao: due,
    tipo: 'AGND',
    status: 'SOLICITADA',
    endToEndId: newEndToEndId(caller.now, RECEIVER_ISPB),
    atualizacao: [{ status: 'SOLICITADA', data: caller.now.toISOString() }],
  };
  const chosen = txid ?? newTxid();
  const id = await insertCobr(
    sql,
    {
      account_id: caller.accountId,
      recurrence_id: rec.id,
      txid: chosen,
      body: { ...body, ajusteDiaUtil: ajuste },
      amount_cents: cents,
      due_date: due,
      tentativas: [tentativa],
    },
    caller.now,
  );
  if (id === undefined) throw refuse(`O txid ${chosen} já está em uso.`, 'txid', chosen);
  const row = (await findCobrById(sql, id)) as CobrRow;
  await enqueueAcknowledgement(sql, row, caller.now);
  await enqueueAttempt(sql, row, 0, brasiliaDayStart(due), caller.now);
  await enqueueExpiry(
    sql,
    row,
    brasiliaDayStart(fromEpochDay(toEpochDay(due) + LIMITS.cobrRetryWindowDays + 1)),
    caller.now,
  );
  return notifyCobr(sql, row, caller.now);
}

const cobrNotFound = (txid: string) => notFound(`Cobrança recorrente ${txid} não encontrada.`, COBR_NOT_FOUND);

async function ownCobr(sql: Sql, accountId: number, txid: string, lock = false): Promise<CobrRow> {
  const row = await findCobr(sql, accountId, txid, lock);
  if (!row) throw cobrNotFound(txid);
  return row;
}

export async function readCobr(sql: Sql, caller: Caller, txid: string): Promise<CobrCompleta> {
  return cobrView(sql, await ownCobr(sql, caller.accountId, txid));
}

/** The receiver cancels: only before the date of the first attempt (Bacen CobROperacaoInvalida otherwise). */
export async function cancelCobr(sql: Sql, caller: Caller, txid: string): Promise<CobrCompleta> {
  const row = await ownCobr(sql, caller.accountId, txid, true);
  if (row.status !== 'CRIADA' && row.status !== 'ATIVA')
    throw refuse(`Uma cobrança ${row.status} não pode ser cancelada.`, 'cobr.status', row.status);
  if (brasiliaDate(caller.now) >= row.due_date)
    throw refuse(
      'Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.',
      'cobr.status',
    );
  const next: CobrRow = {
    ...withStatus(row, 'CANCELADA', caller.now),
    tentativas: row.tentativas.map((t) =>
      t.status === 'SOLICITADA' || t.status === 'AGENDADA' ? withAttemptStatus(t, 'CANCELADA', caller.now) : t,
    ),
    encerramento: {
      cancelamento: {
        solicitante: 'USUARIO_RECEBEDOR',
        codigo: 'SLCR',
        descricao: 'Cancelamento solicitado pelo usuário recebedor.',
      },
    },
  };
  return saveCobr(sql, next, caller.now);
}

/**
 * A retry after a failed attempt (Bacen POST /cobr/{txid}/retentativa/{data}): only under PERMITE_3R_7D, at
 * most 3, within 7 days after the due date, one a day, in the future, and never for a charge that is no
 * longer open or whose last attempt has not failed.
 */
export async function retryCobr(sql: Sql, caller: Caller, txid: string, data: string): Promise<CobrCompleta> {
  const row = await ownCobr(sql, caller.accountId, txid, true);
  if (row.politica_retentativa !== 'PERMITE_3R_7D')
    throw refuse('A recorrência não permite retentativas (NAO_PERMITE).', 'politicaRetentativa');
  if (row.status !== 'ATIVA')
    throw refuse(`Uma cobrança ${row.status} não admite retentativa.`, 'cobr.status', row.status);
  const last = row.tentativas.at(-1);
  if (last?.status !== 'REJEITADA') throw refuse('A última tentativa de liquidação não falhou.', 'cobr.tentativas');
  if (row.tentativas.filter((t) => t.tipo === 'RIFL').length >= LIMITS.cobrRetriesMax)
    throw refuse(`Limite de ${LIMITS.cobrRetriesMax} retentativas atingido.`, 'cobr.tentativas');
  const day = toEpochDay(data);
  const dueDay = toEpochDay(row.due_date);
  if (day <= dueDay || day > dueDay + LIMITS.cobrRetryWindowDays)
    throw refuse(
      `A retentativa deve ser em até ${LIMITS.cobrRetryWindowDays} dias após o vencimento ${row.due_date}.`,
      'data',
      data,
    );
  if (data <= brasiliaDate(caller.now)) throw refuse('A data da retentativa deve ser futura.', 'data', data);
  if (row.tentativas.some((t) => t.dataLiquidacao === data))
    throw refuse('Já existe uma tentativa de liquidação nesta data.', 'data', data);
  const tentativa: TentativaRow = {
    dataLiquidacao: data,
    tipo: 'RIFL',
    status: 'AGENDADA',
    endToEndId: newEndToEndId(caller.now, RECEIVER_ISPB),
    atualizacao: [
      { status: 'SOLICITADA', data: caller.now.toISOString() },
      { status: 'AGENDADA', data: caller.now.toISOString() },
    ],
  };
  const next: CobrRow = { ...row, tentativas: [...row.tentativas, tentativa] };
  await enqueueAttempt(sql, next, next.tentativas.length - 1, brasiliaDayStart(data), caller.now);
  return saveCobr(sql, next, caller.now);
}

export async function listCobrsView(sql: Sql, caller: Caller, q: CobrListQuery) {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  const violations: Violation[] = [];
  if (fim < inicio) violations.push({ property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim });
  if (q.cpf && q.cnpj) violations.push({ property: 'cpf', reason: 'Informe cpf ou cnpj, não ambos.' });
  if (violations.length) throw invalid(COBR_QUERY_INVALID, 'Parâmetros de consulta inválidos.', violations);
  const page = q['paginacao.paginaAtual'] ?? 0;
  const pageSize = q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listCobrs(
    sql,
    { accountId: caller.accountId, inicio, fim, idRec: q.idRec, documento: q.cpf ?? q.cnpj, status: q.status },
    page,
    pageSize,
  );
  const cobsr = [];
  for (const row of rows) cobsr.push(await cobrView(sql, row));
  return {
    parametros: {
      inicio: q.inicio,
      fim: q.fim,
      ...(q.idRec && { idRec: q.idRec }),
      ...(q.cpf && { cpf: q.cpf }),
      ...(q.cnpj && { cnpj: q.cnpj }),
      ...(q.status && { status: q.status }),
      paginacao: paginacao(page, pageSize, total),
    },
    cobsr,
  };
}

/** Sends the last event of a recurring charge (the given one, or the latest changed) again: its current state. */
export async function replayCobrEvent(sql: Sql, accountId: number, txid: string | undefined, now: Date) {
  const row = txid ? await findCobr(sql, accountId, txid) : await latestCobr(sql, accountId);
  if (!row) throw cobrNotFound(txid ?? '(nenhuma)');
  const item = await cobrView(sql, row);
  return { entrega: await enqueueAccountEvent(sql, 'cobr', accountId, item, row.txid, now), item };
}
