/** SQL of payment links (one per charge). */
import type { Sql } from '../../platform/db/database.ts';
import type { LinkSettingsInput } from './schemas.ts';

export interface LinkRow {
  charge_id: number;
  token: string;
  payment_method: LinkSettingsInput['payment_method'];
  billet_discount: number | null;
  card_discount: number | null;
  conditional_discount: { type: 'currency' | 'percentage'; value: number; until_date: string } | null;
  message: string | null;
  expire_at: string;
  request_delivery_address: boolean;
  delivery_address: Record<string, string> | null;
  created_at: Date;
}

const columns = (t = '') => `${t}charge_id, ${t}token, ${t}payment_method, ${t}billet_discount, ${t}card_discount,
  ${t}conditional_discount, ${t}message, to_char(${t}expire_at, 'YYYY-MM-DD') as expire_at, ${t}request_delivery_address,
  ${t}delivery_address, ${t}created_at`;
const COLUMNS = columns();

const settingValues = (s: LinkSettingsInput) => [
  s.payment_method,
  s.billet_discount ?? null,
  s.card_discount ?? null,
  s.conditional_discount ? JSON.stringify(s.conditional_discount) : null,
  s.message ?? null,
  s.expire_at,
  s.request_delivery_address,
];

export async function insertLink(sql: Sql, chargeId: number, token: string, s: LinkSettingsInput, now: Date) {
  const { rows } = await sql.query<LinkRow>(
    `insert into billing_links (charge_id, token, payment_method, billet_discount, card_discount, conditional_discount, message,
       expire_at, request_delivery_address, created_at, updated_at) values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $10)
     returning ${COLUMNS}`,
    [chargeId, token, ...settingValues(s), now],
  );
  return rows[0];
}

export async function updateLinkSettings(sql: Sql, chargeId: number, s: LinkSettingsInput, now: Date) {
  const { rows } = await sql.query<LinkRow>(
    `update billing_links set payment_method = $2, billet_discount = $3, card_discount = $4, conditional_discount = $5::jsonb,
       message = $6, expire_at = $7, request_delivery_address = $8, updated_at = $9 where charge_id = $1 returning ${COLUMNS}`,
    [chargeId, ...settingValues(s), now],
  );
  return rows[0];
}

export async function findLink(sql: Sql, where: { chargeId?: number; token?: string }): Promise<LinkRow | undefined> {
  const { rows } = await sql.query<LinkRow>(
    `select ${COLUMNS} from billing_links where ($1::bigint is null or charge_id = $1) and ($2::text is null or token = $2)`,
    [where.chargeId ?? null, where.token ?? null],
  );
  return rows[0];
}

export async function saveDeliveryAddress(sql: Sql, chargeId: number, address: object, now: Date): Promise<void> {
  await sql.query('update billing_links set delivery_address = $2::jsonb, updated_at = $3 where charge_id = $1', [
    chargeId,
    JSON.stringify(address),
    now,
  ]);
}

/** The account's links with their charge's state, newest first (the console). */
export async function linksOf(
  sql: Sql,
  accountId: number,
  limit: number,
): Promise<(LinkRow & { status: string; total_cents: number })[]> {
  const { rows } = await sql.query<LinkRow & { status: string; total_cents: number }>(
    `select ${columns('l.')}, c.status, c.total_cents
       from billing_links l join billing_charges c on c.id = l.charge_id where c.account_id = $1 order by l.charge_id desc limit $2`,
    [accountId, limit],
  );
  return rows;
}
