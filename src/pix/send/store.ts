/** Storage of sent Pix (migration 015). */
import type { Sql } from '../../platform/db/database.ts';
import type { PaymentTarget, unpayableReason } from '../payments/engine.ts';

export type SentStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
export type SentVia = 'chave' | 'dados_bancarios' | 'qrcode';

/** The receiver as reads and webhooks show it (identificacao unmasked here; masked in views). */
export interface SentFavorecido {
  chave?: string;
  contaBanco?: {
    nome: string;
    cpf?: string;
    cnpj?: string;
    codigoBanco: string;
    agencia: string;
    conta: string;
    tipoConta: string;
  };
  identificacao?: { nome: string; cpf?: string; cnpj?: string };
}

export interface SentPixRow {
  id: number;
  account_id: number;
  id_envio: string;
  end_to_end_id: string;
  request: Record<string, unknown>;
  via: SentVia;
  payer_key: string;
  info_pagador: string | null;
  amount_cents: number;
  favorecido: SentFavorecido;
  destination: 'pixd' | 'externa';
  target: PaymentTarget | null;
  receiver_account_id: number | null;
  status: SentStatus;
  motivo: string | null;
  requested_at: Date;
  settled_at: Date | null;
}

const COLUMNS = `id, account_id, id_envio, end_to_end_id, request, via, payer_key, info_pagador, amount_cents, favorecido,
  destination, target, receiver_account_id, status, motivo, requested_at, settled_at`;

export async function findSentByIdEnvio(sql: Sql, accountId: number, idEnvio: string): Promise<SentPixRow | undefined> {
  const { rows } = await sql.query<SentPixRow>(
    `select ${COLUMNS} from sent_pix where account_id = $1 and id_envio = $2`,
    [accountId, idEnvio],
  );
  return rows[0];
}

export async function findSentByE2e(sql: Sql, accountId: number, e2eId: string): Promise<SentPixRow | undefined> {
  const { rows } = await sql.query<SentPixRow>(
    `select ${COLUMNS} from sent_pix where account_id = $1 and end_to_end_id = $2`,
    [accountId, e2eId],
  );
  return rows[0];
}

export async function lockSent(sql: Sql, id: number): Promise<SentPixRow | undefined> {
  const { rows } = await sql.query<SentPixRow>(`select ${COLUMNS} from sent_pix where id = $1 for update`, [id]);
  return rows[0];
}

export async function insertSent(
  sql: Sql,
  row: Omit<SentPixRow, 'id' | 'status' | 'motivo' | 'settled_at'>,
): Promise<SentPixRow> {
  const { rows } = await sql.query<SentPixRow>(
    `insert into sent_pix (account_id, id_envio, end_to_end_id, request, via, payer_key, info_pagador, amount_cents, favorecido,
       destination, target, receiver_account_id, status, requested_at)
     values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::jsonb, $10, $11::jsonb, $12, 'EM_PROCESSAMENTO', $13) returning ${COLUMNS}`,
    [
      row.account_id,
      row.id_envio,
      row.end_to_end_id,
      JSON.stringify(row.request),
      row.via,
      row.payer_key,
      row.info_pagador,
      row.amount_cents,
      JSON.stringify(row.favorecido),
      row.destination,
      row.target ? JSON.stringify(row.target) : null,
      row.receiver_account_id,
      row.requested_at,
    ],
  );
  return rows[0];
}

export async function settleSent(
  sql: Sql,
  id: number,
  status: 'REALIZADO' | 'NAO_REALIZADO',
  at: Date,
  motivo: string | null,
  favorecido?: SentFavorecido,
): Promise<SentPixRow> {
  const { rows } = await sql.query<SentPixRow>(
    `update sent_pix set status = $2, settled_at = $3, motivo = $4, favorecido = coalesce($5::jsonb, favorecido)
     where id = $1 returning ${COLUMNS}`,
    [id, status, at, motivo, favorecido ? JSON.stringify(favorecido) : null],
  );
  return rows[0];
}

export interface SentFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  status?: SentStatus;
}

export async function listSent(
  sql: Sql,
  f: SentFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: SentPixRow[]; total: number }> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  let where = 'account_id = $1 and requested_at >= $2 and requested_at <= $3';
  if (f.status) {
    params.push(f.status);
    where += ` and status = $${params.length}`;
  }
  const count = await sql.query<{ n: number }>(`select count(*)::int as n from sent_pix where ${where}`, params);
  params.push(pageSize, page * pageSize);
  const { rows } = await sql.query<SentPixRow>(
    `select ${COLUMNS} from sent_pix where ${where} order by requested_at, id limit $${params.length - 1} offset $${params.length}`,
    params,
  );
  return { rows, total: count.rows[0].n };
}

/** The active key's owner, or undefined (a removed key belongs to nobody). */
export async function keyOwner(sql: Sql, chave: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ account_id: number }>(
    'select account_id from pix_keys where chave = $1 and removed_at is null',
    [chave],
  );
  return rows[0]?.account_id;
}

export async function accountByConta(sql: Sql, conta: string): Promise<{ id: number } | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from accounts where conta = $1', [conta]);
  return rows[0];
}

export async function accountHolder(
  sql: Sql,
  accountId: number,
): Promise<{ nome: string; documento: string; conta: string }> {
  const { rows } = await sql.query<{ nome: string; documento: string; conta: string }>(
    'select nome, documento, conta from accounts where id = $1',
    [accountId],
  );
  return rows[0];
}

/** The charge a location of this pixd serves, with what the engine's payability rules read. */
export type ChargeAtLocation = Parameters<typeof unpayableReason>[0];

export async function chargeAtLocation(sql: Sql, token: string): Promise<ChargeAtLocation | undefined> {
  const { rows } = await sql.query<ChargeAtLocation>(
    `select c.id, c.account_id, c.txid, c.kind, c.status, c.created_at, c.amount_cents, c.chave, c.body, k.removed_at as key_removed_at
       from locations l join charges c on c.location_id = l.id left join pix_keys k on k.chave = c.chave
      where l.token = $1`,
    [token],
  );
  return rows[0];
}

/** The pixd account that sent a received Pix (a transfer between accounts), or undefined. */
export async function pixdPayerOf(sql: Sql, receivedPixId: number): Promise<number | undefined> {
  const { rows } = await sql.query<{ account_id: number }>(
    `select s.account_id from received_pix r join sent_pix s on s.end_to_end_id = r.end_to_end_id
      where r.id = $1 and r.origin = 'pixd_transfer'`,
    [receivedPixId],
  );
  return rows[0]?.account_id;
}

/** The account holder as a Pix names its payer: CPF for a person, CNPJ for a company. */
export async function holderIdentity(
  sql: Sql,
  accountId: number,
): Promise<{ nome: string; cpf?: string; cnpj?: string }> {
  const holder = await accountHolder(sql, accountId);
  return holder.documento.length === 11
    ? { nome: holder.nome, cpf: holder.documento }
    : { nome: holder.nome, cnpj: holder.documento };
}
