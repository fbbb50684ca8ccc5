/**
 * The console's reads that no API service already offers: the account list for the switcher, keyset pages of
 * charges (newest first, so a page costs the same with 100,000 charges), the overview's sums, and the mark
 * live updates compare. Every query names the account: nothing here crosses accounts but `consoleAccounts`.
 */
import type { Sql } from '../platform/db/database.ts';
import type { TipoCob } from '../pix/loc/store.ts';

export interface ConsoleAccount {
  id: number;
  nome: string;
}

export async function consoleAccounts(sql: Sql, ids?: number[]): Promise<ConsoleAccount[]> {
  const { rows } = await sql.query<{ id: string | number; nome: string }>(
    'select id, nome from accounts where ($1::bigint[] is null or id = any($1::bigint[])) order by id',
    [ids ?? null],
  );
  return rows.map((r) => ({ id: Number(r.id), nome: r.nome }));
}

export interface ChargeSearch {
  kind: TipoCob;
  txid?: string;
  status?: string;
  /** Created in [from, to). */
  from?: Date;
  to?: Date;
  /** The payer's CPF or CNPJ (digits). */
  document?: string;
  /** Keyset cursor: rows strictly older than this (created_at, id). */
  before?: { createdAt: Date; id: number };
}

export interface ChargeListRow {
  id: number;
  txid: string;
  kind: TipoCob;
  status: string;
  created_at: Date;
  amount_cents: number;
  devedor_nome: string | null;
  devedor_documento: string | null;
}

/** One page and whether another follows (`limit + 1` read, one dropped). */
export async function chargePage(
  sql: Sql,
  accountId: number,
  search: ChargeSearch,
  limit: number,
): Promise<{ rows: ChargeListRow[]; more: boolean }> {
  const { rows } = await sql.query<ChargeListRow & { id: string | number; amount_cents: string | number }>(
    `select id, txid, kind, status, created_at, amount_cents,
            body->'devedor'->>'nome' as devedor_nome, coalesce(devedor_cpf, devedor_cnpj) as devedor_documento
       from charges
      where account_id = $1 and kind = $2
        and ($3::text is null or txid = $3)
        and ($4::text is null or status = $4)
        and ($5::timestamptz is null or created_at >= $5)
        and ($6::timestamptz is null or created_at < $6)
        and ($7::text is null or devedor_cpf = $7 or devedor_cnpj = $7)
        and ($8::timestamptz is null or (created_at, id) < ($8, $9::bigint))
      order by created_at desc, id desc
      limit $10`,
    [
      accountId,
      search.kind,
      search.txid ?? null,
      search.status ?? null,
      search.from ?? null,
      search.to ?? null,
      search.document ?? null,
      search.before?.createdAt ?? null,
      search.before?.id ?? 0,
      limit + 1,
    ],
  );
  const page = rows.slice(0, limit).map((r) => ({ ...r, id: Number(r.id), amount_cents: Number(r.amount_cents) }));
  return { rows: page, more: rows.length > limit };
}

/**
 * What changed last in an account, as one text: the newest charge write, received Pix, outbox job and
 * webhook attempt. An open page's event stream compares it between polls; each part reads an index's end.
 */
export async function liveMark(sql: Sql, accountId: number): Promise<string> {
  const { rows } = await sql.query<Record<string, unknown>>(
    `select (select max(created_at) from charges where account_id = $1 and kind = 'cob') as cob,
            (select max(created_at) from charges where account_id = $1 and kind = 'cobv') as cobv,
            (select max(received_at) from received_pix where account_id = $1) as pix,
            (select max(id) from webhook_attempts where account_id = $1) as attempt`,
    [accountId],
  );
  return JSON.stringify(rows[0]);
}

export interface DaySums {
  receivedCents: number;
  receivedCount: number;
  sentCents: number;
  sentCount: number;
}

export async function sumsSince(sql: Sql, accountId: number, since: Date): Promise<DaySums> {
  const { rows } = await sql.query<Record<string, string | number>>(
    `select (select coalesce(sum(amount_cents), 0) from received_pix where account_id = $1 and received_at >= $2) as rc,
            (select count(*) from received_pix where account_id = $1 and received_at >= $2) as rn,
            (select coalesce(sum(amount_cents), 0) from sent_pix where account_id = $1 and requested_at >= $2) as sc,
            (select count(*) from sent_pix where account_id = $1 and requested_at >= $2) as sn`,
    [accountId, since],
  );
  const r = rows[0];
  return { receivedCents: Number(r.rc), receivedCount: Number(r.rn), sentCents: Number(r.sc), sentCount: Number(r.sn) };
}

/** Received Pix summed per bucket (`hour` or `day`, UTC) since a time: the overview's chart. */
export async function receivedPerBucket(
  sql: Sql,
  accountId: number,
  since: Date,
  bucket: 'hour' | 'day',
): Promise<{ at: Date; cents: number }[]> {
  const { rows } = await sql.query<{ at: Date; cents: string | number }>(
    `select date_trunc($3, received_at at time zone 'UTC') at time zone 'UTC' as at, sum(amount_cents) as cents
       from received_pix where account_id = $1 and received_at >= $2 group by 1 order by 1`,
    [accountId, since, bucket],
  );
  return rows.map((r) => ({ at: new Date(r.at), cents: Number(r.cents) }));
}

/** Webhook attempts since a time: how many answered 2xx, and the latest failures. */
export async function deliveryHealth(sql: Sql, accountId: number, since: Date, errorsShown: number) {
  const totals = await sql.query<{ total: string | number; ok: string | number }>(
    `select count(*) as total, count(*) filter (where status_code between 200 and 299) as ok
       from webhook_attempts where account_id = $1 and attempted_at >= $2`,
    [accountId, since],
  );
  const errors = await sql.query<{ attempted_at: Date; url: string; status_code: number | null; error: string | null }>(
    `select attempted_at, url, status_code, error from webhook_attempts
      where account_id = $1 and not coalesce(status_code between 200 and 299, false)
      order by id desc limit $2`,
    [accountId, errorsShown],
  );
  return { total: Number(totals.rows[0].total), ok: Number(totals.rows[0].ok), errors: errors.rows };
}
