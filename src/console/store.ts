/**
 * The console's reads that no API service already offers: the account list for the switcher, keyset pages of
 * charges, recurring charges and received and sent Pix (newest first, so a page costs the same with 100,000
 * rows; the API's lists page by offset), the overview's sums, the mark live updates compare, and the sessions
 * ended by "Sair". Every query names the account (or the session): nothing here crosses accounts but
 * `consoleAccounts`.
 */
import type { Sql } from '../platform/db/database.ts';
import type { TipoCob } from '../pix/loc/store.ts';
import type { ReceivedPixRow } from '../pix/received/store.ts';
import type { SentPixRow } from '../pix/send/store.ts';
import type { CobrRow } from '../pix/cobr/store.ts';
import { grantSql } from './users/store.ts';

/** Keyset position (console/paging.ts): a page holds the rows strictly older than this (time, id). */
export interface Cursor {
  at: Date;
  id: number;
}

/** A `limit + 1` read as one page and whether another follows. */
function pageOf<T>(rows: T[], limit: number): { rows: T[]; more: boolean } {
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/** bigint columns as numbers (ids and cents stay far below 2^53). */
const numeric = <T extends { id: unknown; amount_cents: unknown }>(r: T) => ({
  ...r,
  id: Number(r.id),
  amount_cents: Number(r.amount_cents),
});

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
  before?: Cursor;
}

export interface ChargeListRow {
  id: number;
  txid: string;
  kind: TipoCob;
  status: string;
  created_at: Date;
  amount_cents: number;
  /** Who paid (the latest Pix received for the charge), not the debtor the charge names. */
  pagador_nome: string | null;
  pagador_documento: string | null;
}

/** One page and whether another follows (`limit + 1` read, one dropped). */
export async function chargePage(
  sql: Sql,
  accountId: number,
  search: ChargeSearch,
  limit: number,
): Promise<{ rows: ChargeListRow[]; more: boolean }> {
  const { rows } = await sql.query<ChargeListRow>(
    `select id, txid, kind, status, created_at, amount_cents, paid.pagador_nome, paid.pagador_documento
       from charges
       left join lateral (
         select p.pagador_nome, coalesce(nullif(p.pagador_cpf, ''), p.pagador_cnpj) as pagador_documento
           from received_pix p where p.charge_id = charges.id order by p.id desc limit 1) paid on true
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
      search.before?.at ?? null,
      search.before?.id ?? 0,
      limit + 1,
    ],
  );
  return pageOf(rows.map(numeric), limit);
}

export interface CobrSearch {
  txid?: string;
  status?: string;
  /** The debtor's CPF or CNPJ (digits), as the recurrence names it. */
  document?: string;
  idRec?: string;
  before?: Cursor;
}

export type CobrListRow = Pick<CobrRow, 'id' | 'txid' | 'status' | 'due_date' | 'amount_cents' | 'created_at'>;

/** Recurring charges newest first, on (account_id, created_at, id) (migration 024). */
export async function cobrPage(
  sql: Sql,
  accountId: number,
  search: CobrSearch,
  limit: number,
): Promise<{ rows: CobrListRow[]; more: boolean }> {
  const { rows } = await sql.query<CobrListRow>(
    `select c.id::int as id, c.txid, c.status, c.due_date, c.amount_cents::int as amount_cents, c.created_at
       from recurring_charges c join recurrences r on r.id = c.recurrence_id
      where c.account_id = $1
        and ($2::text is null or c.txid = $2)
        and ($3::text is null or c.status = $3)
        and ($4::text is null or r.devedor_documento = $4)
        and ($5::text is null or r.id_rec = $5)
        and ($6::timestamptz is null or (c.created_at, c.id) < ($6, $7::bigint))
      order by c.created_at desc, c.id desc
      limit $8`,
    [
      accountId,
      search.txid ?? null,
      search.status ?? null,
      search.document ?? null,
      search.idRec ?? null,
      search.before?.at ?? null,
      search.before?.id ?? 0,
      limit + 1,
    ],
  );
  return pageOf(rows, limit);
}

export type PixWindow = { from: Date; to: Date; before?: Cursor };

/**
 * One keyset page of an account's rows whose `at` falls in [from, to), newest first, on the index
 * (account_id, <at>, id). The table and columns are this module's constants, never input.
 */
async function windowPage<Row extends { id: number; amount_cents: number }>(
  sql: Sql,
  source: { table: string; columns: string; at: string },
  accountId: number,
  window: PixWindow,
  limit: number,
): Promise<{ rows: Row[]; more: boolean }> {
  const { table, columns, at } = source;
  const { rows } = await sql.query<Row>(
    `select ${columns}, ${at}
       from ${table}
      where account_id = $1 and ${at} >= $2 and ${at} < $3
        and ($4::timestamptz is null or (${at}, id) < ($4, $5::bigint))
      order by ${at} desc, id desc
      limit $6`,
    [accountId, window.from, window.to, window.before?.at ?? null, window.before?.id ?? 0, limit + 1],
  );
  return pageOf(rows.map(numeric), limit);
}

export type ReceivedListRow = Pick<ReceivedPixRow, 'id' | 'end_to_end_id' | 'txid' | 'amount_cents' | 'received_at'>;

/** Received Pix in [from, to), newest first. */
export const receivedPixPage = (sql: Sql, accountId: number, window: PixWindow, limit: number) =>
  windowPage<ReceivedListRow>(
    sql,
    { table: 'received_pix', columns: 'id, end_to_end_id, txid, amount_cents', at: 'received_at' },
    accountId,
    window,
    limit,
  );

export type SentListRow = Pick<SentPixRow, 'id' | 'id_envio' | 'status' | 'amount_cents' | 'requested_at'>;

/** Sent Pix requested in [from, to), newest first. */
export const sentPixPage = (sql: Sql, accountId: number, window: PixWindow, limit: number) =>
  windowPage<SentListRow>(
    sql,
    { table: 'sent_pix', columns: 'id, id_envio, status, amount_cents', at: 'requested_at' },
    accountId,
    window,
    limit,
  );

/**
 * What changed last in an account, as one text: the newest charge (cob, cobv, cobr), received Pix and webhook
 * attempt; and what the database says of the stream's session (signed out; what its user holds now). An open
 * page's event stream compares the mark between polls; each part reads an index's end.
 */
export async function liveMark(
  sql: Sql,
  accountId: number,
  session: SessionRef,
): Promise<{ mark: string; state: SessionState }> {
  const { rows } = await sql.query<Record<string, unknown>>(
    `select (select max(created_at) from charges where account_id = $1 and kind = 'cob') as cob,
            (select max(created_at) from charges where account_id = $1 and kind = 'cobv') as cobv,
            (select max(created_at) from recurring_charges where account_id = $1) as cobr,
            (select max(received_at) from received_pix where account_id = $1) as pix,
            (select max(id) from webhook_attempts where account_id = $1) as attempt,
            ${stateSql('$2', '$3')}`,
    [accountId, session.id, session.userId ?? null],
  );
  const { revoked, user_grant, ...mark } = rows[0];
  return { mark: JSON.stringify(mark), state: stateOf({ revoked, user_grant }) };
}

/** A session as the database knows it: its id, and its console user's when it is one's. */
export interface SessionRef {
  id: string;
  userId?: number;
}

/**
 * What may end a session before its time: "Sair" (`revoked`), and for a console user's session what the user
 * holds now (console/users/store.ts `grantOf`: secret, role, accounts; null: removed), which session.ts compares
 * with what the session was granted at sign-in.
 */
export interface SessionState {
  revoked: boolean;
  userGrant: string | null;
}

const stateSql = (sessionParam: string, userParam: string) =>
  `exists (select 1 from console_session_revocations where session_id = ${sessionParam}) as revoked,
   ${grantSql(userParam)} as user_grant`;

const stateOf = (row: Record<string, unknown>): SessionState => ({
  revoked: row.revoked === true,
  userGrant: typeof row.user_grant === 'string' ? row.user_grant : null,
});

export async function sessionState(sql: Sql, session: SessionRef): Promise<SessionState> {
  const { rows } = await sql.query<Record<string, unknown>>(`select ${stateSql('$1', '$2')}`, [
    session.id,
    session.userId ?? null,
  ]);
  return stateOf(rows[0]);
}

/**
 * Ends a session for every node (they all read this table), kept until `expiresAt`, when any copy of its cookie
 * has expired anyway; and removes at most `purgeMax` revocations past theirs, so the table holds about the
 * sessions ended within the idle time.
 */
export async function revokeSession(sql: Sql, sessionId: string, expiresAt: Date, now: Date, purgeMax: number) {
  await sql.query(
    `insert into console_session_revocations (session_id, expires_at) values ($1, $2)
     on conflict (session_id) do update set expires_at = greatest(console_session_revocations.expires_at, $2)`,
    [sessionId, expiresAt],
  );
  await sql.query(
    `delete from console_session_revocations where session_id in
       (select session_id from console_session_revocations where expires_at < $1 order by expires_at limit $2)`,
    [now, purgeMax],
  );
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

/**
 * Received Pix summed per bucket (the overview's charts): the buckets' starts are given, each `stepMs` long, and
 * each is one range of the account's `(account_id, received_at)` index, so the period's rows are summed as they
 * are read, never sorted or grouped by an expression (which spilled 100,000 rows to disk). The starts come as an
 * array: its size is not guessed from a `generate_series` the planner cannot see through.
 */
export async function receivedPerBucket(
  sql: Sql,
  accountId: number,
  starts: Date[],
  stepMs: number,
): Promise<{ at: Date; cents: number }[]> {
  const { rows } = await sql.query<{ at: Date; cents: string | number }>(
    `select b.at, coalesce(sum(p.amount_cents), 0) as cents
       from unnest($2::timestamptz[]) as b (at)
       left join received_pix p
         on p.account_id = $1 and p.received_at >= b.at and p.received_at < b.at + $3 * interval '1 millisecond'
      group by b.at order by b.at`,
    [accountId, starts, stepMs],
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
