import type { Sql } from '../../platform/db/database.ts';

export interface OfConfigRow {
  account_id: number;
  redirect_url: string;
  webhook_url: string;
  webhook_security: 'mtls' | 'hmac';
  hmac_key: string | null;
  process_payment: string;
}

export async function saveOfConfig(sql: Sql, row: OfConfigRow, now: Date): Promise<void> {
  await sql.query(
    `insert into of_config (account_id, redirect_url, webhook_url, webhook_security, hmac_key, process_payment, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (account_id) do update set redirect_url = excluded.redirect_url, webhook_url = excluded.webhook_url,
       webhook_security = excluded.webhook_security, hmac_key = excluded.hmac_key,
       process_payment = excluded.process_payment, updated_at = excluded.updated_at`,
    [row.account_id, row.redirect_url, row.webhook_url, row.webhook_security, row.hmac_key, row.process_payment, now],
  );
}

export async function findOfConfig(sql: Sql, accountId: number): Promise<OfConfigRow | undefined> {
  const { rows } = await sql.query<OfConfigRow>('select * from of_config where account_id = $1', [accountId]);
  return rows[0];
}
