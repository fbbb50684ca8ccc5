/**
 * What a recurring charge looks like (Bacen CobRCompleta) and how a change of it is written and notified:
 * every change goes through `saveCobr`, which enqueues the `/cobr` webhook in the same transaction.
 */
import { findAccount } from '../../accounts/store.ts';
import type { Sql } from '../../platform/db/database.ts';
import { formatAmount } from '../../platform/money.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { enqueueAccountEvent } from '../webhook/events.ts';
import type { CobrCompleta, CobrStatus } from './schemas.ts';
import { updateCobr, type CobrRow, type TentativaRow } from './store.ts';

/** Bacen CobRCompleta of a row. */
export async function cobrView(sql: Sql, row: CobrRow): Promise<CobrCompleta> {
  return cobrViewOf(row, await findAccount(sql, row.account_id));
}

/** Bacen CobRCompleta of a row whose receiving account was read already (the batched settlement reads it with the row). */
export function cobrViewOf(row: CobrRow, account: { nome: string; documento: string } | undefined): CobrCompleta {
  const documento = account?.documento ?? '';
  const paid = row.tentativas.find((t) => t.status === 'PAGA');
  return {
    idRec: row.id_rec,
    txid: row.txid,
    ...(row.body.infoAdicional !== undefined && { infoAdicional: row.body.infoAdicional }),
    calendario: { criacao: brasiliaDate(row.created_at), dataDeVencimento: row.due_date },
    valor: { original: formatAmount(row.amount_cents) },
    ajusteDiaUtil: row.body.ajusteDiaUtil ?? true,
    recebedor: {
      ...row.body.recebedor,
      ...(documento.length === 11 ? { cpf: documento } : { cnpj: documento }),
      nome: account?.nome ?? '',
    },
    ...(row.body.devedor && { devedor: row.body.devedor as Record<string, string> }),
    status: row.status,
    politicaRetentativa: row.politica_retentativa,
    ...(paid && {
      pix: [
        {
          endToEndId: paid.endToEndId,
          txid: row.txid,
          valor: formatAmount(row.amount_cents),
          horario: paid.atualizacao.at(-1)?.data ?? row.updated_at.toISOString(),
        },
      ],
    }),
    atualizacao: row.atualizacao,
    ...(row.encerramento && { encerramento: row.encerramento }),
    tentativas: row.tentativas,
  };
}

/** Writes a change and its `/cobr` webhook (Bacen CobRNotification: the charge as it now is). */
export async function saveCobr(sql: Sql, row: CobrRow, now: Date): Promise<CobrCompleta> {
  await updateCobr(sql, row, now);
  return notifyCobr(sql, row, now);
}

export async function notifyCobr(sql: Sql, row: CobrRow, now: Date): Promise<CobrCompleta> {
  const view = await cobrView(sql, row);
  await enqueueAccountEvent(sql, 'cobr', row.account_id, view, row.txid, now);
  return view;
}

export function withStatus(row: CobrRow, status: CobrStatus, now: Date): CobrRow {
  return { ...row, status, atualizacao: [...row.atualizacao, { status, data: now.toISOString() }] };
}

export function withAttemptStatus(t: TentativaRow, status: TentativaRow['status'], now: Date): TentativaRow {
  return { ...t, status, atualizacao: [...t.atualizacao, { status, data: now.toISOString() }] };
}
