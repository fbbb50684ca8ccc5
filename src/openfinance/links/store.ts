/** SQL of biometric links (vínculos) and the expiry of an unused consent link. */
import type { Sql } from '../../platform/db/database.ts';
import { findConsentRecord, type ConsentRecordKey } from '../consent/store.ts';
import { EXPIRED_LINK_REASON } from '../consent/journey.ts';
import { enqueueOfCallback } from '../events.ts';
import type { PixPagador } from '../pix/schemas.ts';

export type LinkStatus = 'pendente' | 'autorizado' | 'rejeitado' | 'revogado';

export interface LinkRow {
  id: number;
  account_id: number;
  identificador: string;
  status: LinkStatus;
  motivo: string | null;
  pagador: PixPagador;
  cpf: string;
  cnpj: string | null;
  transaction_limit_cents: number;
  daily_limit_cents: number;
  consent_token: string;
  consent_expires_at: Date;
  authorised_at: Date | null;
  expires_at: Date | null;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, account_id, identificador, status, motivo, pagador, cpf, cnpj,
  transaction_limit_cents::float8 as transaction_limit_cents, daily_limit_cents::float8 as daily_limit_cents,
  consent_token, consent_expires_at, authorised_at, expires_at, idempotency_key, created_at, updated_at`;

/** Undefined when the account already made a link under the same idempotency key: the caller reads that one. */
export async function insertLink(
  sql: Sql,
  row: Omit<LinkRow, 'id' | 'motivo' | 'authorised_at' | 'expires_at' | 'updated_at'>,
): Promise<LinkRow | undefined> {
  const { rows } = await sql.query<LinkRow>(
    `insert into of_links (account_id, identificador, status, pagador, cpf, cnpj, transaction_limit_cents,
       daily_limit_cents, consent_token, consent_expires_at, idempotency_key, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
     on conflict (account_id, idempotency_key) do nothing returning ${COLUMNS}`,
    [
      row.account_id,
      row.identificador,
      row.status,
      JSON.stringify(row.pagador),
      row.cpf,
      row.cnpj,
      row.transaction_limit_cents,
      row.daily_limit_cents,
      row.consent_token,
      row.consent_expires_at,
      row.idempotency_key,
      row.created_at,
    ],
  );
  return rows[0];
}

export function findLink(sql: Sql, by: ConsentRecordKey, lock = false): Promise<LinkRow | undefined> {
  return findConsentRecord<LinkRow>(sql, 'of_links', COLUMNS, by, lock);
}

/** The account's links of a payer, authorised and within their validity at `now`, oldest first. */
export async function activeLinks(
  sql: Sql,
  accountId: number,
  payer: { cpf: string; cnpj?: string },
  now: Date,
): Promise<LinkRow[]> {
  const { rows } = await sql.query<LinkRow>(
    `select ${COLUMNS} from of_links
      where account_id = $1 and cpf = $2 and ($3::text is null or cnpj = $3) and status = 'autorizado' and expires_at > $4
      order by created_at, id`,
    [accountId, payer.cpf, payer.cnpj ?? null, now],
  );
  return rows;
}

/** A status change and its callback, in the caller's transaction. */
export async function moveLink(
  sql: Sql,
  row: LinkRow,
  status: LinkStatus,
  motivo: string | null,
  now: Date,
  validUntil?: Date,
): Promise<LinkRow> {
  const { rows } = await sql.query<LinkRow>(
    `update of_links set status = $2, motivo = $3, updated_at = $4,
       authorised_at = case when $2 = 'autorizado' then $4 else authorised_at end, expires_at = coalesce($5, expires_at)
     where id = $1 returning ${COLUMNS}`,
    [row.id, status, motivo, now, validUntil ?? null],
  );
  await enqueueOfCallback(
    sql,
    row.account_id,
    {
      tipo: 'vinculo',
      identificadorVinculo: row.identificador,
      status,
      ...(motivo !== null && { motivo }),
      data: now.toISOString(),
    },
    now,
  );
  return rows[0];
}

/** A pending link past its consent deadline (on the account's clock) is rejected: the clock decides. */
export async function expireLinkIfDue(sql: Sql, row: LinkRow, now: Date): Promise<LinkRow> {
  if (row.status !== 'pendente' || now < row.consent_expires_at) return row;
  return moveLink(sql, row, 'rejeitado', EXPIRED_LINK_REASON, now);
}
