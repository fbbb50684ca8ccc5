/** Storage of account-opening webhooks. */
import type { Sql } from '../platform/db/database.ts';

export interface OpeningWebhookRow {
  id: string;
  account_id: number;
  webhook_url: string;
  chave: string | null;
  created_at: Date;
}

export async function insertOpeningWebhook(sql: Sql, row: OpeningWebhookRow): Promise<OpeningWebhookRow | undefined> {
  const { rows } = await sql.query<OpeningWebhookRow>(
    `insert into opening_webhooks (id, account_id, webhook_url, chave, created_at) values ($1, $2, $3, $4, $5)
     on conflict (account_id, webhook_url) do nothing returning *`,
    [row.id, row.account_id, row.webhook_url, row.chave, row.created_at],
  );
  return rows[0];
}

export async function urlRegistered(sql: Sql, accountId: number, webhookUrl: string): Promise<boolean> {
  const { rows } = await sql.query('select 1 from opening_webhooks where account_id = $1 and webhook_url = $2', [
    accountId,
    webhookUrl,
  ]);
  return rows.length > 0;
}

export async function findOpeningWebhook(
  sql: Sql,
  accountId: number,
  id: string,
): Promise<OpeningWebhookRow | undefined> {
  const { rows } = await sql.query<OpeningWebhookRow>(
    'select * from opening_webhooks where id = $1 and account_id = $2',
    [id, accountId],
  );
  return rows[0];
}

export async function deleteOpeningWebhook(sql: Sql, accountId: number, id: string): Promise<boolean> {
  const { rowCount } = await sql.query('delete from opening_webhooks where id = $1 and account_id = $2', [
    id,
    accountId,
  ]);
  return rowCount > 0;
}

export async function openingWebhooksOf(sql: Sql, accountId: number): Promise<OpeningWebhookRow[]> {
  const { rows } = await sql.query<OpeningWebhookRow>(
    'select * from opening_webhooks where account_id = $1 order by created_at, id',
    [accountId],
  );
  return rows;
}

export async function listOpeningWebhooks(
  sql: Sql,
  accountId: number,
  inicio: Date,
  fim: Date,
  page: number,
  pageSize: number,
): Promise<{ rows: OpeningWebhookRow[]; total: number }> {
  const where = 'from opening_webhooks where account_id = $1 and created_at >= $2 and created_at <= $3';
  const count = await sql.query<{ n: number }>(`select count(*)::int as n ${where}`, [accountId, inicio, fim]);
  const { rows } = await sql.query<OpeningWebhookRow>(`select * ${where} order by created_at, id limit $4 offset $5`, [
    accountId,
    inicio,
    fim,
    pageSize,
    page * pageSize,
  ]);
  return { rows, total: count.rows[0].n };
}
