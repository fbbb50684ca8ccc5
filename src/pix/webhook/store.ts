/** Storage of Pix-key webhooks and of the account-level recurrence (rec) and automatic-charge (cobr) webhooks. */
import type { Sql } from '../../platform/db/database.ts';
import { keySettingsJsonOf, keySettingsOf, type KeySettings } from '../settings/store.ts';

export interface PixWebhookRow {
  chave: string;
  account_id: number;
  webhook_url: string;
  skip_mtls: boolean;
  created_at: Date;
}

export type AccountWebhookKind = 'rec' | 'cobr';

export interface AccountWebhookRow {
  account_id: number;
  kind: AccountWebhookKind;
  webhook_url: string;
  skip_mtls: boolean;
  created_at: Date;
}

/** A webhook counts only while its key is still the account's: a removed key's webhook is gone with it. */
export const LIVE_PIX_WEBHOOK = `from pix_webhooks w join pix_keys k on k.chave = w.chave and k.account_id = w.account_id and k.removed_at is null`;

export async function keyBelongsTo(sql: Sql, accountId: number, chave: string): Promise<boolean> {
  const { rows } = await sql.query(
    'select 1 from pix_keys where chave = $1 and account_id = $2 and removed_at is null',
    [chave, accountId],
  );
  return rows.length > 0;
}

export async function findPixWebhook(sql: Sql, accountId: number, chave: string): Promise<PixWebhookRow | undefined> {
  const { rows } = await sql.query<PixWebhookRow>(
    `select w.* ${LIVE_PIX_WEBHOOK} where w.chave = $1 and w.account_id = $2`,
    [chave, accountId],
  );
  return rows[0];
}

/**
 * A key's live webhook and the key's settings in one round trip: a delivery needs both, and with no webhook
 * (the common case for many integrators) the event is done after this one statement instead of two.
 */
export async function findPixWebhookWithSettings(
  sql: Sql,
  accountId: number,
  chave: string,
): Promise<{ webhook: PixWebhookRow; settings: KeySettings } | undefined> {
  const { rows } = await sql.query<PixWebhookRow & { key_settings: unknown }>(
    `select w.*, ${keySettingsJsonOf('w.account_id', 'w.chave')} as key_settings ${LIVE_PIX_WEBHOOK}
     where w.chave = $1 and w.account_id = $2`,
    [chave, accountId],
  );
  if (!rows[0]) return undefined;
  const { key_settings, ...webhook } = rows[0];
  return { webhook, settings: keySettingsOf(key_settings) };
}

/**
 * The key's row is rewritten (same values) in the same statement: settlements lock the keys they pay for share
 * and store their event done when the key has no webhook (src/pix/payments/store.ts), so a registration and a
 * payment of the key are ordered by that row, and a payment that raced this registration sees a new row
 * version and keeps its event for delivery (docs/webhooks.md, "Events with no webhook").
 */
export async function savePixWebhook(sql: Sql, row: PixWebhookRow): Promise<PixWebhookRow> {
  const { rows } = await sql.query<PixWebhookRow>(
    `with key_row as (update pix_keys set chave = chave where chave = $1)
     insert into pix_webhooks (chave, account_id, webhook_url, skip_mtls, created_at) values ($1, $2, $3, $4, $5)
     on conflict (chave) do update set account_id = excluded.account_id, webhook_url = excluded.webhook_url,
       skip_mtls = excluded.skip_mtls, created_at = excluded.created_at
     returning *`,
    [row.chave, row.account_id, row.webhook_url, row.skip_mtls, row.created_at],
  );
  return rows[0];
}

export async function deletePixWebhook(sql: Sql, accountId: number, chave: string): Promise<boolean> {
  const { rowCount } = await sql.query('delete from pix_webhooks where chave = $1 and account_id = $2', [
    chave,
    accountId,
  ]);
  return rowCount > 0;
}

export async function listPixWebhooks(
  sql: Sql,
  accountId: number,
  inicio: Date,
  fim: Date,
  page: number,
  pageSize: number,
): Promise<{ rows: PixWebhookRow[]; total: number }> {
  const where = `${LIVE_PIX_WEBHOOK} where w.account_id = $1 and w.created_at >= $2 and w.created_at <= $3`;
  const count = await sql.query<{ n: number }>(`select count(*)::int as n ${where}`, [accountId, inicio, fim]);
  const { rows } = await sql.query<PixWebhookRow>(
    `select w.* ${where} order by w.created_at, w.chave limit $4 offset $5`,
    [accountId, inicio, fim, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}

export async function findAccountWebhook(
  sql: Sql,
  accountId: number,
  kind: AccountWebhookKind,
): Promise<AccountWebhookRow | undefined> {
  const { rows } = await sql.query<AccountWebhookRow>(
    'select * from account_webhooks where account_id = $1 and kind = $2',
    [accountId, kind],
  );
  return rows[0];
}

export async function saveAccountWebhook(sql: Sql, row: AccountWebhookRow): Promise<AccountWebhookRow> {
  const { rows } = await sql.query<AccountWebhookRow>(
    `insert into account_webhooks (account_id, kind, webhook_url, skip_mtls, created_at) values ($1, $2, $3, $4, $5)
     on conflict (account_id, kind) do update set webhook_url = excluded.webhook_url, skip_mtls = excluded.skip_mtls, created_at = excluded.created_at
     returning *`,
    [row.account_id, row.kind, row.webhook_url, row.skip_mtls, row.created_at],
  );
  return rows[0];
}

export async function deleteAccountWebhook(sql: Sql, accountId: number, kind: AccountWebhookKind): Promise<boolean> {
  const { rowCount } = await sql.query('delete from account_webhooks where account_id = $1 and kind = $2', [
    accountId,
    kind,
  ]);
  return rowCount > 0;
}

/** The received Pix a refund's return id (rtrId, `D...`) belongs to, for resends named by the refund. */
export async function findPixByReturnId(
  sql: Sql,
  accountId: number,
  rtrId: string,
): Promise<{ received_pix_id: number; requested_at: Date } | undefined> {
  const { rows } = await sql.query<{ received_pix_id: number; requested_at: Date }>(
    'select received_pix_id, requested_at from refunds where rtr_id = $1 and account_id = $2',
    [rtrId, accountId],
  );
  return rows[0];
}
