/**
 * The settlement path's two statements (docs/ledger.md, "The settlement path"): one read of everything a
 * payment of a charge is decided on, and one data-modifying statement that writes the whole payment.
 * The write is a compare-and-set on the charge row: it pays only if the row is still the version the
 * read saw (`xmin`), so no lock is held between the two and no transaction is needed; a payment whose
 * charge changed in between writes nothing and goes to the engine's locked path.
 *
 * The write statement also writes rows owned by the ledger (an entry shaped as `post()` writes it: lines
 * summing to zero and the customer's posted total in the same statement) and the outbox (`outboxRowValues`).
 */
import type { Sql } from '../../platform/db/database.ts';
import { availableCodeSql, ledgerCode } from '../../platform/ledger/ledger.ts';
import { jobsEnqueued, outboxRowValues, type NewJob } from '../../platform/outbox/outbox.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import type { CobBody } from '../cob/schemas.ts';
import { keySettingsJsonOf, keySettingsOf, type KeySettings } from '../settings/store.ts';
import type { ReceivedPixRow } from '../received/store.ts';

export interface PayableCharge {
  id: number;
  account_id: number;
  txid: string;
  kind: 'cob' | 'cobv';
  status: string;
  created_at: Date;
  amount_cents: number;
  chave: string;
  body: CobBody | CobVBody;
  key_removed_at: Date | null;
}

/** The charge to pay, read without a lock, and what else the payment depends on. */
export interface ChargeForSettlement extends PayableCharge {
  /** The row version read (`xmin`): the write pays only this version. */
  version: string;
  /** A split configuration is linked: the payment divides it (the locked path does). */
  split_linked: boolean;
  key_settings: KeySettings;
  /** Ledger account ids, null until the account's first entry creates it (the locked path does). */
  external_ledger_id: number | null;
  available_ledger_id: number | null;
}

export type ChargeTarget = { kind: 'charge'; accountId: number; txid: string } | { kind: 'location'; token: string };

const CHARGE_COLUMNS = `c.id, c.account_id, c.txid, c.kind, c.status, c.created_at, c.amount_cents, c.chave, c.body,
  k.removed_at as key_removed_at`;

/** What the locked path reads: the charge, locked until the transaction ends. */
export async function lockChargeForPayment(sql: Sql, target: ChargeTarget): Promise<PayableCharge | undefined> {
  const { rows } =
    target.kind === 'charge'
      ? await sql.query<PayableCharge>(
          `select ${CHARGE_COLUMNS} from charges c left join pix_keys k on k.chave = c.chave
           where c.account_id = $1 and c.txid = $2 for update of c`,
          [target.accountId, target.txid],
        )
      : await sql.query<PayableCharge>(
          `select ${CHARGE_COLUMNS} from charges c left join pix_keys k on k.chave = c.chave
           join locations l on l.id = c.location_id where l.token = $1 for update of c`,
          [target.token],
        );
  return rows[0];
}

const READ_FOR_SETTLEMENT = `select ${CHARGE_COLUMNS}, c.xmin::text as version,
    exists (select 1 from split_links s where s.charge_id = c.id) as split_linked,
    ${keySettingsJsonOf('c.account_id', 'c.chave')} as key_settings,
    (select a.id from ledger_accounts a where a.code = $1) as external_ledger_id,
    (select a.id from ledger_accounts a where a.code = ${availableCodeSql('c.account_id')}) as available_ledger_id
  from charges c left join pix_keys k on k.chave = c.chave`;

/** One round trip: the charge, its key, the key's settings, whether a split is linked, the ledger account ids. */
export async function readChargeForSettlement(
  sql: Sql,
  target: ChargeTarget,
): Promise<ChargeForSettlement | undefined> {
  const { rows } =
    target.kind === 'charge'
      ? await sql.query<ChargeForSettlement>(`${READ_FOR_SETTLEMENT} where c.account_id = $2 and c.txid = $3`, [
          ledgerCode.externalPix,
          target.accountId,
          target.txid,
        ])
      : await sql.query<ChargeForSettlement>(
          `${READ_FOR_SETTLEMENT} join locations l on l.id = c.location_id where l.token = $2`,
          [ledgerCode.externalPix, target.token],
        );
  const row = rows[0];
  if (row) row.key_settings = keySettingsOf(row.key_settings);
  return row;
}

export interface Settlement {
  charge: Pick<ChargeForSettlement, 'id' | 'version'>;
  pix: Omit<ReceivedPixRow, 'id'>;
  /** `external:pix` and `customer:<receiver>:available`: the entry moves the amount from the first to the second. */
  ledger: { externalId: number; availableId: number };
  event: NewJob;
}

/**
 * The whole payment of a charge in one statement, atomic by itself: conclude the charge (only the version read,
 * only if still ATIVA), record the received Pix, post the `pix_recebido` entry (two lines summing to zero and the
 * receiver's posted total) and enqueue the webhook event. Every insert selects from the row before it, so when
 * the charge is no longer the version read nothing at all is written and this returns undefined.
 */
export async function writeSettlement(sql: Sql, s: Settlement): Promise<ReceivedPixRow | undefined> {
  const p = s.pix;
  const { rows } = await sql.query<{ id: number }>(
    `with paid as (
       update charges set status = 'CONCLUIDA', updated_at = $1::timestamptz
       where id = $2::bigint and status = 'ATIVA' and xmin = $3::text::xid
       returning id),
     pix as (
       insert into received_pix (end_to_end_id, account_id, charge_id, txid, chave, amount_cents, received_at, pagador_cpf,
         pagador_cnpj, pagador_nome, info_pagador, components, origin)
       select $4::text, $5::bigint, paid.id, $6::text, $7::text, $8::bigint, $1::timestamptz, $9::text, $10::text, $11::text,
         $12::text, $13::jsonb, $14::text from paid
       returning id),
     entry as (
       insert into journal_entries (kind, reference, account_id, created_at)
       select 'pix_recebido', $4::text, $5::bigint, $1::timestamptz from pix returning id),
     lines as (
       insert into journal_lines (entry_id, ledger_account_id, amount_cents)
       select entry.id, l.ledger_account_id, l.amount_cents
       from entry, (values ($15::bigint, -$8::bigint), ($16::bigint, $8::bigint)) as l(ledger_account_id, amount_cents)),
     total as (
       update ledger_accounts a set balance_cents = a.balance_cents + $8::bigint
       where a.id = $16::bigint and a.balance_cents is not null and exists (select 1 from entry)),
     job as (
       insert into outbox (topic, ordering_key, payload, available_at, created_at)
       select $17::text, $18::text, $19::jsonb, $20::timestamptz, $21::timestamptz from pix)
     select id from pix`,
    [
      p.received_at,
      s.charge.id,
      s.charge.version,
      p.end_to_end_id,
      p.account_id,
      p.txid,
      p.chave,
      p.amount_cents,
      p.pagador_cpf,
      p.pagador_cnpj,
      p.pagador_nome,
      p.info_pagador,
      p.components ? JSON.stringify(p.components) : null,
      p.origin,
      s.ledger.externalId,
      s.ledger.availableId,
      ...outboxRowValues(s.event),
    ],
  );
  if (!rows.length) return undefined;
  jobsEnqueued(sql);
  return { id: rows[0].id, ...p };
}
