/**
 * The settlement path's two statements (docs/ledger.md, "The settlement path"): one read of everything a
 * payment of a charge is decided on, and one data-modifying statement that writes the whole payment.
 * The write is a compare-and-set on the charge row: it pays only if the row is still the version the
 * read saw (`xmin`), so no lock is held between the two and no transaction is needed; a payment whose
 * charge changed in between writes nothing and goes to the engine's locked path.
 *
 * The write statement also writes rows owned by the ledger and the outbox, with the SQL those modules own
 * (`PIX_RECEIVED_POSTING`, `outboxInsertSql`; test/platform/single-writers.test.ts).
 */
import type { Sql } from '../../platform/db/database.ts';
import { availableCodeSql, ledgerCode, PIX_RECEIVED_POSTING } from '../../platform/ledger/ledger.ts';
import { moneyMoved } from '../../platform/logging.ts';
import {
  jobsEnqueued,
  outboxColumnsOf,
  outboxInsertSql,
  outboxRowValues,
  type NewJob,
} from '../../platform/outbox/jobs.ts';
import type { PixEventPayload } from '../webhook/payloads.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import type { CobBody } from '../cob/schemas.ts';
import { keySettingsJsonOf, keySettingsOf, type KeySettings } from '../settings/store.ts';
import { insertReceivedPixFrom, type ReceivedPixRow } from '../received/store.ts';

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

/** A charge as the engine reads it to pay it. */
export interface ChargeToPay extends PayableCharge {
  /** The key is a participant's entry: a payment waits for the participant's confirmation (holds.ts). */
  confirm_incoming: boolean;
}

/** The charge to pay, read without a lock, and what else the payment depends on. */
export interface ChargeForSettlement extends ChargeToPay {
  /** The row version read (`xmin`): the write pays only this version. */
  version: string;
  /** A split configuration is linked: the payment divides it (the locked path does). */
  split_linked: boolean;
  /** The QR of a boleto (src/billing/boletos): the payment also pays the boleto's charge (the locked path does). */
  boleto_linked: boolean;
  key_settings: KeySettings;
  /** Ledger account ids, null until the account's first entry creates it (the locked path does). */
  external_ledger_id: number | null;
  available_ledger_id: number | null;
}

export type ChargeTarget = { kind: 'charge'; accountId: number; txid: string } | { kind: 'location'; token: string };

const CHARGE_COLUMNS = `c.id, c.account_id, c.txid, c.kind, c.status, c.created_at, c.amount_cents, c.chave, c.body,
  k.removed_at as key_removed_at, coalesce(k.confirm_incoming, false) as confirm_incoming`;

/** What the locked path reads: the charge, locked until the transaction ends. */
export async function lockChargeForPayment(sql: Sql, target: ChargeTarget): Promise<ChargeToPay | undefined> {
  const { rows } =
    target.kind === 'charge'
      ? await sql.query<ChargeToPay>(
          `select ${CHARGE_COLUMNS} from charges c left join pix_keys k on k.chave = c.chave
           where c.account_id = $1 and c.txid = $2 for update of c`,
          [target.accountId, target.txid],
        )
      : await sql.query<ChargeToPay>(
          `select ${CHARGE_COLUMNS} from charges c left join pix_keys k on k.chave = c.chave
           join locations l on l.id = c.location_id where l.token = $1 for update of c`,
          [target.token],
        );
  return rows[0];
}

const SETTLEMENT_COLUMNS = `${CHARGE_COLUMNS}, c.xmin::text as version,
    exists (select 1 from split_links s where s.charge_id = c.id) as split_linked,
    exists (select 1 from billing_boletos b where b.pix_charge_id = c.id) as boleto_linked,
    ${keySettingsJsonOf('c.account_id', 'c.chave')} as key_settings,
    (select a.id from ledger_accounts a where a.code = $1) as external_ledger_id,
    (select a.id from ledger_accounts a where a.code = ${availableCodeSql('c.account_id')}) as available_ledger_id`;
const KEY_OF_CHARGE = 'left join pix_keys k on k.chave = c.chave';

/** One round trip: the charge, its key, the key's settings, whether a split is linked, the ledger account ids. */
export async function readChargeForSettlement(
  sql: Sql,
  target: ChargeTarget,
): Promise<ChargeForSettlement | undefined> {
  if (target.kind === 'charge') return (await readChargesForSettlement(sql, [target]))[0];
  const { rows } = await sql.query<ChargeForSettlement>(
    `select ${SETTLEMENT_COLUMNS} from charges c ${KEY_OF_CHARGE}
     join locations l on l.id = c.location_id where l.token = $2`,
    [ledgerCode.externalPix, target.token],
  );
  return settlementRead(rows[0]);
}

/**
 * `readChargeForSettlement` of several charges by receiver and txid in one statement (the reads coalesced by
 * settlement-batcher.ts), answering in the order asked; undefined where there is no such charge.
 */
export async function readChargesForSettlement(
  sql: Sql,
  targets: Extract<ChargeTarget, { kind: 'charge' }>[],
): Promise<(ChargeForSettlement | undefined)[]> {
  const { rows } = await sql.query<ChargeForSettlement & { n: number }>(
    `select t.n, ${SETTLEMENT_COLUMNS}
     from unnest($2::bigint[], $3::text[]) with ordinality as t(account_id, txid, n)
     join charges c on c.account_id = t.account_id and c.txid = t.txid ${KEY_OF_CHARGE}`,
    [ledgerCode.externalPix, targets.map((t) => t.accountId), targets.map((t) => t.txid)],
  );
  const byPosition = new Map(rows.map((row) => [Number(row.n), row]));
  return targets.map((_, n) => settlementRead(byPosition.get(n + 1)));
}

function settlementRead(row: (ChargeForSettlement & { n?: number }) | undefined): ChargeForSettlement | undefined {
  if (!row) return undefined;
  delete row.n;
  row.key_settings = keySettingsOf(row.key_settings);
  return row;
}

/** The log line of a `pix_recebido` entry written by the ledger's PIX_RECEIVED_POSTING (post() logs its own). */
export function pixReceivedMoved(sql: Sql, pix: Pick<ReceivedPixRow, 'end_to_end_id' | 'account_id' | 'amount_cents'>) {
  moneyMoved(sql, {
    kind: 'pix_recebido',
    reference: pix.end_to_end_id,
    accountId: pix.account_id,
    amountCents: pix.amount_cents,
  });
}

/** A payment as a settlement statement writes it: the received Pix, its entry's ledger accounts, its event. */
export interface PaymentWrite {
  pix: Omit<ReceivedPixRow, 'id'>;
  /** `external:pix` and `customer:<receiver>:available`: the entry moves the amount from the first to the second. */
  ledger: { externalId: number; availableId: number };
  event: NewJob<PixEventPayload>;
}

export interface Settlement extends PaymentWrite {
  charge: Pick<ChargeForSettlement, 'id' | 'version'>;
}

/** A column of a settlement statement's `input`: its name, its SQL type, its value for a payment. */
export type InputColumn<T> = readonly [name: string, type: string, value: (item: T) => unknown];

const PAYMENT_COLUMNS: InputColumn<PaymentWrite>[] = [
  ['end_to_end_id', 'text', (p) => p.pix.end_to_end_id],
  ['account_id', 'bigint', (p) => p.pix.account_id],
  ['charge_id', 'bigint', (p) => p.pix.charge_id],
  ['txid', 'text', (p) => p.pix.txid],
  ['chave', 'text', (p) => p.pix.chave],
  ['amount_cents', 'bigint', (p) => p.pix.amount_cents],
  ['received_at', 'timestamptz', (p) => p.pix.received_at],
  ['pagador_cpf', 'text', (p) => p.pix.pagador_cpf],
  ['pagador_cnpj', 'text', (p) => p.pix.pagador_cnpj],
  ['pagador_nome', 'text', (p) => p.pix.pagador_nome],
  ['info_pagador', 'text', (p) => p.pix.info_pagador],
  ['components', 'jsonb', (p) => (p.pix.components ? JSON.stringify(p.pix.components) : null)],
  ['origin', 'text', (p) => p.pix.origin],
  ['external_id', 'bigint', (p) => p.ledger.externalId],
  ['available_id', 'bigint', (p) => p.ledger.availableId],
];
/** The event's outbox row, in `outboxRowValues`' order. */
const JOB_COLUMNS = [
  ['topic', 'text'],
  ['ordering_key', 'text'],
  ['payload', 'jsonb'],
  ['available_at', 'timestamptz'],
  ['created_at', 'timestamptz'],
  ['job_account_id', 'bigint'],
] as const;

/**
 * The CTE `input` of a settlement statement (the charges' here, the SPI boundary's credits in src/spi/store.ts):
 * one row per payment, its statement's own columns (`own`) then the payment's, from parameters $1 on; and those
 * parameters, one array per column. The statement's further parameters are numbered from `next`.
 */
export function settlementInput<T extends PaymentWrite>(
  list: T[],
  own: InputColumn<T>[],
): { cte: string; params: unknown[][]; next: number } {
  const jobs = list.map((p) => outboxRowValues(p.event));
  const columns: [string, string, unknown[]][] = [
    ...[...own, ...PAYMENT_COLUMNS].map(([name, type, value]): [string, string, unknown[]] => [
      name,
      type,
      list.map(value),
    ]),
    ...JOB_COLUMNS.map(([name, type], n): [string, string, unknown[]] => [name, type, jobs.map((values) => values[n])]),
  ];
  const cte = `input as (
       select * from unnest(${columns.map(([, type], n) => `$${n + 1}::${type}[]`).join(', ')})
         as i(${columns.map(([name]) => name).join(', ')}))`;
  return { cte, params: columns.map(([, , values]) => values), next: columns.length + 1 };
}

/**
 * The rest of a settlement statement, after `input` and the CTEs that decide which payments are written
 * (`from`: `input i` joined with them): each one's received Pix (whose JSON text for GET /v2/pix PostgreSQL
 * composes as it inserts the row), its `pix_recebido` entry (the ledger's `PIX_RECEIVED_POSTING`) and its webhook
 * event (`outboxInsertSql`), each an `insert … select` from the row before it, so a payment not in `from` writes
 * nothing at all. The event is stored done, as its delivery would have left it (no attempt, nothing to claim),
 * unless `pending` (SQL over `i`) holds (docs/ledger.md, "Events nobody receives are not claimed"); it is due
 * now on the receiver's clock, stored on the service's as enqueue does (no lock on the clock's row: a move only
 * brings pending jobs forward, and this one is due already). Answers `end_to_end_id, id, pending` per Pix.
 */
export function settlementWritesSql(from: string, pending: string): string {
  return `pix as (${insertReceivedPixFrom(from, 'id, end_to_end_id')}),
     ${PIX_RECEIVED_POSTING},
     routed as (
       select i.end_to_end_id, ${pending} as pending from input i join pix on pix.end_to_end_id = i.end_to_end_id),
     job as (${outboxInsertSql({
       ...outboxColumnsOf('i'),
       from: 'input i join routed r on r.end_to_end_id = i.end_to_end_id',
       doneWhen: 'not r.pending',
     })})
     select pix.end_to_end_id, pix.id, routed.pending from pix join routed on routed.end_to_end_id = pix.end_to_end_id`;
}

/** Whether a Pix to the key of `i` reaches a webhook (`settlementWritesSql`'s `pending` when the key was locked as read). */
export const KEY_HAS_WEBHOOK_SQL = 'exists (select 1 from pix_webhooks w where w.chave = i.chave)';

/** The payments of `list` a settlement statement wrote (its answer's rows), logged; undefined where none was. */
export function settlementsWritten<T extends PaymentWrite>(
  sql: Sql,
  list: T[],
  rows: { end_to_end_id: string; id: number | string; pending: boolean }[],
): (ReceivedPixRow | undefined)[] {
  const written = new Map(rows.map((row) => [row.end_to_end_id, row]));
  const woken = new Set<string>();
  return list.map((p) => {
    const row = written.get(p.pix.end_to_end_id);
    if (row === undefined) return undefined;
    pixReceivedMoved(sql, p.pix);
    // Only an event stored pending wakes the webhook lanes: one stored done has nothing to claim.
    if (row.pending && !woken.has(p.event.topic.name)) jobsEnqueued(sql, p.event.topic);
    if (row.pending) woken.add(p.event.topic.name);
    return { id: Number(row.id), ...p.pix };
  });
}

/**
 * Whole payments of charges in one statement, atomic by itself, for one payment or many (payments coalesced by
 * the group commit of settlement-batcher.ts): conclude each charge (only the version read, only if still ATIVA),
 * then `settlementWritesSql` for the charges concluded: a payment whose charge is no longer the version read
 * writes nothing at all, undefined in its place. The caller gives each charge at most once per call.
 */
export async function writeSettlements(sql: Sql, list: Settlement[]): Promise<(ReceivedPixRow | undefined)[]> {
  const input = settlementInput(list, [['version', 'text', (s) => s.charge.version]]);
  const { rows } = await sql.query<{ end_to_end_id: string; id: number; pending: boolean }>(
    `with ${input.cte},
     paid as (
       update charges c set status = 'CONCLUIDA', updated_at = i.received_at
       from input i where c.id = i.charge_id and c.status = 'ATIVA' and c.xmin = i.version::xid
       returning c.id),
     -- Whether the event can reach a webhook (docs/webhooks.md, "Events with no webhook"): the keys are locked
     -- for share, so a registration (which updates its key's row) either committed before this statement's
     -- snapshot (its webhook row is seen), or is ordered around this payment by the lock. A key row whose
     -- locked version is not the one the snapshot reads changed meanwhile: the event is kept pending then, and
     -- its delivery decides, as every event's did before.
     locked_keys as materialized (
       select k.chave, k.xmin::text as version from pix_keys k where k.chave = any($${input.next}::text[]) for share of k),
     ${settlementWritesSql(
       'input i join paid on paid.id = i.charge_id',
       `${KEY_HAS_WEBHOOK_SQL}
           or (select k.xmin::text from pix_keys k where k.chave = i.chave) is distinct from
              (select l.version from locked_keys l where l.chave = i.chave)`,
     )}`,
    [...input.params, [...new Set(list.map((s) => s.pix.chave))]],
  );
  return settlementsWritten(sql, list, rows);
}

/** A key as the settlement path reads it. */
export interface KeyForSettlement {
  chave: string;
  account_id: number;
  removed_at: Date | null;
  confirm_incoming: boolean;
  /** The versions read of the key row and its settings row (`keyVersionSql`): the write pays only while they hold. */
  version: string;
  key_settings: KeySettings;
  external_ledger_id: number | null;
  available_ledger_id: number | null;
}

/**
 * The version of a key as a payment depends on it, for a statement where `k` is its `pix_keys` row: the row's
 * `xmin` (removal, confirmations, owner, webhook registrations rewrite it) and its settings row's (or none).
 */
export const keyVersionSql = (k: string) =>
  `${k}.xmin::text || '/' || coalesce((select s.xmin::text from pix_key_settings s where s.chave = ${k}.chave), '')`;

/** One statement for several keys, answering in the order asked; undefined where the key is not here. */
export async function readKeysForSettlement(sql: Sql, chaves: string[]): Promise<(KeyForSettlement | undefined)[]> {
  const { rows } = await sql.query<KeyForSettlement & { n: number }>(
    `select t.n, k.chave, k.account_id, k.removed_at, k.confirm_incoming, ${keyVersionSql('k')} as version,
       ${keySettingsJsonOf('k.account_id', 'k.chave')} as key_settings,
       (select a.id from ledger_accounts a where a.code = $1) as external_ledger_id,
       (select a.id from ledger_accounts a where a.code = ${availableCodeSql('k.account_id')}) as available_ledger_id
     from unnest($2::text[]) with ordinality as t(chave, n) join pix_keys k on k.chave = t.chave`,
    [ledgerCode.externalPix, chaves],
  );
  const byPosition = new Map(rows.map(({ n, ...row }) => [Number(n), row]));
  return chaves.map((_, n) => {
    const row = byPosition.get(n + 1);
    return row && { ...row, account_id: Number(row.account_id), key_settings: keySettingsOf(row.key_settings) };
  });
}
