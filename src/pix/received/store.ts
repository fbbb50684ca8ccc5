/** Storage of received Pix and their refunds. */
import type { Sql } from '../../platform/db/database.ts';
import type { SimulatedOrigin } from '../../platform/extensions.ts';
import { qualifiedColumns } from '../../platform/db/columns.ts';
import { notifyRefundOutcome } from '../../openfinance/pix/refund-outcome.ts';

/** Who delivered a received Pix: a participant, a transfer inside pixd, Open Finance, the SPI, or a simulation. */
export type PixOrigin = 'participant' | 'pixd_transfer' | 'open_finance' | 'spi' | SimulatedOrigin;

export interface ReceivedPixRow {
  id: number;
  end_to_end_id: string;
  account_id: number;
  charge_id: number | null;
  txid: string | null;
  chave: string | null;
  amount_cents: number;
  received_at: Date;
  pagador_cpf: string | null;
  pagador_cnpj: string | null;
  pagador_nome: string;
  info_pagador: string | null;
  components: Record<string, number> | null;
  origin: PixOrigin;
}

export interface RefundRow {
  id: number;
  received_pix_id: number;
  account_id: number;
  refund_id: string;
  rtr_id: string;
  amount_cents: number;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  natureza: string;
  descricao: string | null;
  requested_at: Date;
  settled_at: Date | null;
  motivo: string | null;
}

const PIX_COLUMNS = `id, end_to_end_id, account_id, charge_id, txid, chave, amount_cents, received_at, pagador_cpf, pagador_cnpj,
  pagador_nome, info_pagador, components, origin`;
/** The columns a payment writes (`insertReceivedPixFrom`): every one but the id and the generated ones. */
const WRITTEN_COLUMNS = [
  'end_to_end_id',
  'account_id',
  'charge_id',
  'txid',
  'chave',
  'amount_cents',
  'received_at',
  'pagador_cpf',
  'pagador_cnpj',
  'pagador_nome',
  'info_pagador',
  'components',
  'origin',
] as const;

/**
 * For a statement that records received Pix among other rows (the settlement statements): the insert of one
 * received Pix per row of `from`, whose alias `i` has the written columns under their names.
 */
export const insertReceivedPixFrom = (from: string, returning: string) =>
  `insert into received_pix (${WRITTEN_COLUMNS.join(', ')})
       select ${WRITTEN_COLUMNS.map((column) => `i.${column}`).join(', ')} from ${from}
       returning ${returning}`;

const columnsOf = (alias: string) => qualifiedColumns(PIX_COLUMNS, alias);
const REFUND_COLUMNS =
  'id, received_pix_id, account_id, refund_id, rtr_id, amount_cents, status, natureza, descricao, requested_at, settled_at, motivo';

export async function insertReceivedPix(sql: Sql, row: Omit<ReceivedPixRow, 'id'>): Promise<ReceivedPixRow> {
  const { rows } = await sql.query<ReceivedPixRow>(
    `insert into received_pix (end_to_end_id, account_id, charge_id, txid, chave, amount_cents, received_at, pagador_cpf, pagador_cnpj,
       pagador_nome, info_pagador, components, origin)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13) returning ${PIX_COLUMNS}`,
    [
      row.end_to_end_id,
      row.account_id,
      row.charge_id,
      row.txid,
      row.chave,
      row.amount_cents,
      row.received_at,
      row.pagador_cpf,
      row.pagador_cnpj,
      row.pagador_nome,
      row.info_pagador,
      row.components ? JSON.stringify(row.components) : null,
      row.origin,
    ],
  );
  return rows[0];
}

export async function findReceivedPix(
  sql: Sql,
  accountId: number,
  endToEndId: string,
  forUpdate = false,
): Promise<ReceivedPixRow | undefined> {
  const { rows } = await sql.query<ReceivedPixRow>(
    `select ${PIX_COLUMNS} from received_pix where account_id = $1 and end_to_end_id = $2${forUpdate ? ' for update' : ''}`,
    [accountId, endToEndId],
  );
  return rows[0];
}

/** The Pix that paid the account's charge `txid` (by the charge's unique key, then its one payment). */
export async function findReceivedPixByTxid(
  sql: Sql,
  accountId: number,
  txid: string,
): Promise<ReceivedPixRow | undefined> {
  const { rows } = await sql.query<ReceivedPixRow>(
    `select ${columnsOf('p')} from charges c join received_pix p on p.charge_id = c.id
     where c.account_id = $1 and c.txid = $2`,
    [accountId, txid],
  );
  return rows[0];
}

export interface ReceivedPixFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  txid?: string;
  txIdPresente?: boolean;
  devolucaoPresente?: boolean;
  cpf?: string;
  cnpj?: string;
}

export async function receivedPixForCharges(sql: Sql, chargeIds: number[]): Promise<ReceivedPixRow[]> {
  if (!chargeIds.length) return [];
  const { rows } = await sql.query<ReceivedPixRow>(
    `select ${PIX_COLUMNS} from received_pix where charge_id = any($1) order by id`,
    [chargeIds],
  );
  return rows;
}

export async function refundsOf(sql: Sql, receivedPixIds: number[]): Promise<RefundRow[]> {
  if (!receivedPixIds.length) return [];
  const { rows } = await sql.query<RefundRow>(
    `select ${REFUND_COLUMNS} from refunds where received_pix_id = any($1) order by id`,
    [receivedPixIds],
  );
  return rows;
}

export async function findRefund(
  sql: Sql,
  receivedPixId: number,
  refundId: string,
  forUpdate = false,
): Promise<RefundRow | undefined> {
  const { rows } = await sql.query<RefundRow>(
    `select ${REFUND_COLUMNS} from refunds where received_pix_id = $1 and refund_id = $2${forUpdate ? ' for update' : ''}`,
    [receivedPixId, refundId],
  );
  return rows[0];
}

export async function findReceivedPixById(sql: Sql, id: number): Promise<ReceivedPixRow | undefined> {
  const { rows } = await sql.query<ReceivedPixRow>('select * from received_pix where id = $1', [id]);
  return rows[0];
}

export async function findRefundById(sql: Sql, id: number, forUpdate = false): Promise<RefundRow | undefined> {
  const { rows } = await sql.query<RefundRow>(
    `select ${REFUND_COLUMNS} from refunds where id = $1${forUpdate ? ' for update' : ''}`,
    [id],
  );
  return rows[0];
}

export async function insertRefund(sql: Sql, row: Omit<RefundRow, 'id' | 'settled_at' | 'motivo'>): Promise<RefundRow> {
  const { rows } = await sql.query<RefundRow>(
    `insert into refunds (received_pix_id, account_id, refund_id, rtr_id, amount_cents, status, natureza, descricao, requested_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${REFUND_COLUMNS}`,
    [
      row.received_pix_id,
      row.account_id,
      row.refund_id,
      row.rtr_id,
      row.amount_cents,
      row.status,
      row.natureza,
      row.descricao,
      row.requested_at,
    ],
  );
  return rows[0];
}

/** A refund's outcome, with what follows from it in the same transaction (an Open Finance Pix callback). */
export async function settleRefund(
  sql: Sql,
  id: number,
  status: 'DEVOLVIDO' | 'NAO_REALIZADO',
  at: Date,
  motivo: string | null,
): Promise<void> {
  await sql.query('update refunds set status = $2, settled_at = $3, motivo = $4 where id = $1', [
    id,
    status,
    at,
    motivo,
  ]);
  // Every path that settles a refund comes through here (src/spi/answers.ts among them): the one place where an
  // Open Finance Pix payment hears its refund's outcome, in the same transaction.
  await notifyRefundOutcome(sql, id, status, at, motivo);
}

/** What is already committed to go back: refunds in process or done (refused ones free their amount). */
export async function refundedOrPendingCents(sql: Sql, receivedPixId: number): Promise<number> {
  const { rows } = await sql.query<{ total: number }>(
    `select coalesce(sum(amount_cents), 0)::bigint as total from refunds where received_pix_id = $1 and status <> 'NAO_REALIZADO'`,
    [receivedPixId],
  );
  return rows[0].total;
}
