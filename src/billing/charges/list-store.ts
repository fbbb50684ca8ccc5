/** SQL of GET /v1/charges: the account's charges of one type in a date range, with the list's filters. */
import type { Sql } from '../../platform/db/database.ts';
import type { ChargeRow } from './store.ts';

export interface ChargeListFilter {
  accountId: number;
  type: 'billet' | 'card' | 'carnet' | 'subscription';
  /** Which date the range is on: creation, payment, or the boleto's due date (expired). */
  dateOf: 'creation' | 'payment' | 'expired';
  /** Instants (creation, payment) or dates YYYY-MM-DD (expired), start inclusive, end exclusive. */
  from: Date | string;
  to: Date | string;
  status?: string;
  document?: string;
  customId?: string;
  valueCents?: number;
  limit: number;
  offset: number;
}

export type ListedCharge = Pick<
  ChargeRow,
  'id' | 'status' | 'total_cents' | 'custom_id' | 'created_at' | 'paid_at' | 'payment' | 'parcel' | 'carnet_id'
> & { boleto_id: number | null };

const TYPE_WHERE: Record<ChargeListFilter['type'], string> = {
  card: `c.carnet_id is null and c.payment->>'method' = 'credit_card'`,
  billet: `c.carnet_id is null and c.payment->>'method' = 'banking_billet'`,
  carnet: 'c.carnet_id is not null',
  // pixd has no subscriptions: nothing matches.
  subscription: 'false',
};

const DATE_WHERE: Record<ChargeListFilter['dateOf'], string> = {
  creation: 'c.created_at >= $2::timestamptz and c.created_at < $3::timestamptz',
  payment: 'c.paid_at >= $2::timestamptz and c.paid_at < $3::timestamptz',
  expired: 'b.due_date >= $2::date and b.due_date < $3::date',
};

export async function listChargesPage(sql: Sql, f: ChargeListFilter): Promise<ListedCharge[]> {
  const { rows } = await sql.query<ListedCharge>(
    `select c.id, c.status, c.total_cents, c.custom_id, c.created_at, c.paid_at, c.payment, c.parcel, c.carnet_id,
       b.charge_id as boleto_id
     from billing_charges c left join billing_boletos b on b.charge_id = c.id
     where c.account_id = $1 and c.kind = 'charge' and ${TYPE_WHERE[f.type]} and ${DATE_WHERE[f.dateOf]}
       and ($4::text is null or c.status = $4)
       and ($5::text is null or c.payment->'customer'->>'cpf' = $5 or c.payment->'customer'->'juridical_person'->>'cnpj' = $5)
       and ($6::text is null or c.custom_id = $6) and ($7::bigint is null or c.total_cents = $7)
     order by c.id limit $8 offset $9`,
    [
      f.accountId,
      f.from,
      f.to,
      f.status ?? null,
      f.document ?? null,
      f.customId ?? null,
      f.valueCents ?? null,
      f.limit,
      f.offset,
    ],
  );
  return rows;
}
