/** Scheduled Pix: creation (sandbox and operator), list and read. No HTTP here. */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount, parseAmount } from '../../platform/money.ts';
import { RECEIVER_ISPB, newEndToEndId } from '../../platform/institution.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { activeKeysAmong } from '../settings/store.ts';
import type { ScheduleCreate, ScheduleListQuery, ScheduleView } from './schemas.ts';
import { enqueueDue } from './scheduler.ts';
import { findScheduleByTxid, insertSchedule, listSchedulesIn, type Destination, type ScheduleRow } from './store.ts';

/** Creation refusals (sandbox: problem object; operator API: {nome, mensagem}). */
export const SCHEDULE_INVALID = 'AgendamentoInvalido';
/** The /v1 wrapper family's name for a bad query. */
const QUERY_INVALID = 'Validation Error';
const DAY_MS = 86_400_000;

export function scheduleView(row: ScheduleRow): ScheduleView {
  return {
    txid: row.txid,
    end_user_account: row.end_user_account,
    receiver_name: row.receiver_name,
    end_to_end_id: row.end_to_end_id,
    status: row.status,
    // The interface shows `value` as a number; it is made from the exact two-decimal text.
    value: Number(formatAmount(row.amount_cents)),
    scheduling_date: row.scheduling_date.toISOString(),
    error_code: row.error_code,
    error_description: row.error_description,
  };
}

function destinationOf(favorecido: ScheduleCreate['favorecido']): { destination: Destination; endUserAccount: string } {
  const { chave, contaBanco } = favorecido;
  if ((chave === undefined) === (contaBanco === undefined)) {
    throw invalid(SCHEDULE_INVALID, 'Informe exatamente um de favorecido.chave ou favorecido.contaBanco.', [
      { property: 'favorecido', reason: 'exatamente um de chave ou contaBanco.' },
    ]);
  }
  return chave !== undefined
    ? { destination: 'chave', endUserAccount: chave }
    : {
        destination: 'dados_bancarios',
        endUserAccount: `${contaBanco!.ispb}/${contaBanco!.agencia}/${contaBanco!.conta}`,
      };
}

/** Records a Pix this account will send at `dataAgendamento`, and queues the scheduler's first job for then. */
export async function createSchedule(
  sql: Sql,
  accountId: number,
  now: Date,
  body: ScheduleCreate,
): Promise<ScheduleView> {
  const { destination, endUserAccount } = destinationOf(body.favorecido);
  const amountCents = parseAmount(body.valor);
  if (amountCents <= 0)
    throw invalid(SCHEDULE_INVALID, 'O valor deve ser positivo.', [
      { property: 'valor', reason: 'deve ser positivo.', value: body.valor },
    ]);
  const schedulingDate = new Date(body.dataAgendamento);
  if (
    schedulingDate.getTime() <= now.getTime() ||
    schedulingDate.getTime() > now.getTime() + LIMITS.scheduledPixMaxAheadDays * DAY_MS
  ) {
    throw invalid(
      SCHEDULE_INVALID,
      `dataAgendamento deve estar entre agora (${now.toISOString()}) e ${LIMITS.scheduledPixMaxAheadDays} dias à frente.`,
      [{ property: 'dataAgendamento', reason: 'fora do intervalo permitido.', value: body.dataAgendamento }],
    );
  }
  if (body.chave !== undefined && !(await activeKeysAmong(sql, accountId, [body.chave])).has(body.chave)) {
    throw invalid(SCHEDULE_INVALID, `A chave ${body.chave} não é uma chave ativa da conta pagadora.`, [
      { property: 'chave', reason: 'não é uma chave ativa da conta.', value: body.chave },
    ]);
  }
  let row: ScheduleRow;
  try {
    row = await insertSchedule(
      sql,
      {
        account_id: accountId,
        txid: body.txid ?? null,
        // The payer's institution is this service; the id carries the instant the Pix is sent.
        end_to_end_id: newEndToEndId(schedulingDate, RECEIVER_ISPB),
        end_user_account: endUserAccount,
        destination,
        receiver_name: body.favorecido.nome,
        chave: body.chave ?? null,
        amount_cents: amountCents,
        scheduling_date: schedulingDate,
      },
      now,
    );
  } catch (error) {
    if (isUniqueViolation(error))
      throw invalid(SCHEDULE_INVALID, `O txid ${body.txid} já foi utilizado em outro agendamento.`, [
        { property: 'txid', reason: 'txid já utilizado.', value: body.txid },
      ]);
    throw error;
  }
  await enqueueDue(sql, accountId, row.id, schedulingDate, now);
  return scheduleView(row);
}

export async function listSchedules(
  sql: Sql,
  accountId: number,
  q: ScheduleListQuery,
): Promise<{ data: ScheduleView[]; total: number; page: number; limit: number }> {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  if (fim < inicio)
    throw invalid(QUERY_INVALID, 'fim é anterior a inicio.', [
      { property: 'querystring.fim', reason: 'anterior a inicio.', value: q.fim },
    ]);
  if (fim.getTime() - inicio.getTime() > LIMITS.scheduledPixListRangeMaxDays * DAY_MS) {
    throw invalid(
      QUERY_INVALID,
      `O intervalo entre inicio e fim não pode passar de ${LIMITS.scheduledPixListRangeMaxDays} dias.`,
      [
        {
          property: 'querystring.fim',
          reason: `mais de ${LIMITS.scheduledPixListRangeMaxDays} dias após inicio.`,
          value: q.fim,
        },
      ],
    );
  }
  const page = q.page ?? 1;
  const limit = q.limit ?? LIMITS.scheduledPixPageSizeDefault;
  const { rows, total } = await listSchedulesIn(sql, accountId, inicio, fim, (page - 1) * limit, limit);
  return { data: rows.map(scheduleView), total, page, limit };
}

export async function readSchedule(
  sql: Sql,
  accountId: number,
  txid: string,
): Promise<{ data: ScheduleView[]; total: number }> {
  const row = await findScheduleByTxid(sql, accountId, txid);
  if (!row) throw notFound(`Nenhum Pix agendado com o txid ${txid}.`);
  return { data: [scheduleView(row)], total: 1 };
}
