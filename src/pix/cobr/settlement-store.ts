/**
 * The batched settlement of recurring charges, as the charges' settlement path does it (src/pix/payments/store.ts):
 * one read of everything a paid attempt depends on, then one data-modifying statement for many payments at once.
 * The write is a compare-and-set on the charge row: it settles only the version the read saw and only while ATIVA,
 * so no lock is held between the two; a payment whose charge changed in between writes nothing and is decided
 * again under the charge's lock. The statement is the SPI boundary's (src/spi/recurring-credit.ts: the payer's
 * pacs.008 claimed in it); its reads and writes of the charge, the Pix, the ledger and the events are here.
 */
import type { Sql } from '../../platform/db/database.ts';
import { GroupCommit, perDatabase } from '../../platform/db/group-commit.ts';
import { availableCodeSql, ledgerCode, PIX_RECEIVED_POSTING } from '../../platform/ledger/ledger.ts';
import { LIMITS } from '../../platform/limits.ts';
import { jobsEnqueued, outboxInsertSql, outboxRowValues, type NewJob } from '../../platform/outbox/jobs.ts';
import { pixReceivedMoved } from '../payments/store.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import type { AccountEventPayload, PixEventPayload } from '../webhook/payloads.ts';
import { keySettingsJsonOf, keySettingsOf, type KeySettings } from '../settings/store.ts';
import type { RecRow } from '../rec/store.ts';
import { COBR_COLUMNS, COBR_FROM, type CobrRow, type TentativaRow } from './store.ts';

/**
 * A due charge with everything its paid attempt is decided on, read in one statement without locks: the charge
 * and its version, its recurrence, the receiving account, the key the Pix lands on and that key's settings,
 * whether a split applies, and the ledger accounts.
 */
export interface CobrForSettlement extends CobrRow {
  /** The charge row's version (`xmin`): the write settles only this version. */
  version: string;
  rec_status: RecRow['status'];
  rec_pagador: RecRow['pagador'];
  rec_body: RecRow['body'];
  account_nome: string;
  account_documento: string;
  /** The account's oldest active key, where the Pix lands; null: none (the attempt's job fails the attempt, AC06). */
  chave: string | null;
  key_settings: KeySettings;
  /** A split configuration applies to the charge's txid: the locked path divides the payment. */
  split: boolean;
  external_ledger_id: number | null;
  available_ledger_id: number | null;
}

/**
 * The statement that reads charges for settlement: the charges picked by `pick` (a join or a where clause over
 * `c`, parameters from `$2`), with the `picked` columns it adds.
 */
const readSql = (pick: string, picked = '') =>
  `select ${picked}${COBR_COLUMNS}, c.xmin::text as version, r.status as rec_status, r.pagador as rec_pagador,
       r.body as rec_body, a.nome as account_nome, a.documento as account_documento, k.chave,
       ${keySettingsJsonOf('c.account_id', 'k.chave')} as key_settings,
       exists (select 1 from split_configs s where s.account_id = c.account_id and s.txid = c.txid and s.status = 'ATIVA') as split,
       (select l.id from ledger_accounts l where l.code = $1) as external_ledger_id,
       (select l.id from ledger_accounts l where l.code = ${availableCodeSql('c.account_id')}) as available_ledger_id
     from ${COBR_FROM} join accounts a on a.id = c.account_id
       left join lateral (select p.chave from pix_keys p where p.account_id = c.account_id and p.removed_at is null
         order by p.created_at, p.chave limit 1) k on true
       ${pick}`;

const settlementRow = (row: CobrForSettlement) => ({ ...row, key_settings: keySettingsOf(row.key_settings) });

/** Many due charges by id in one statement (`cobrSettlementReaderFor` coalesces the attempts falling due together). */
export async function readCobrsForSettlement(sql: Sql, ids: number[]): Promise<(CobrForSettlement | undefined)[]> {
  const { rows } = await sql.query<CobrForSettlement>(readSql('where c.id = any($2::bigint[])'), [
    ledgerCode.externalPix,
    ids,
  ]);
  const byId = new Map(rows.map((row) => [Number(row.id), settlementRow(row)]));
  return ids.map((id) => byId.get(id));
}

/**
 * The attempts falling due together, read as one statement instead of one per job (the read takes no lock, so
 * sharing it changes nothing). The attempt's job decides on it (settlement.ts).
 */
export const cobrSettlementReaderFor = perDatabase(
  (sql) =>
    new GroupCommit<number, CobrForSettlement | undefined>({
      write: (ids) => readCobrsForSettlement(sql, ids),
      statementsInFlight: LIMITS.settlementStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
    }),
);

/** A charge as a payment names it: its txid at the account of a key (even removed) or of an account number. */
export interface CobrPaid {
  txid: string;
  chave?: string;
  conta?: string;
}

/** Many charges named by payments, in one statement (the same read as `readCobrsForSettlement`). */
export async function readCobrsPaid(sql: Sql, list: CobrPaid[]): Promise<(CobrForSettlement | undefined)[]> {
  const { rows } = await sql.query<CobrForSettlement & { n: string }>(
    readSql(
      `join unnest($2::text[], $3::text[], $4::text[]) with ordinality as i(txid, chave, conta, n)
         on c.txid = i.txid and c.account_id = coalesce((select p.account_id from pix_keys p where p.chave = i.chave),
           (select x.id from accounts x where x.conta = i.conta))`,
      'i.n, ',
    ),
    [
      ledgerCode.externalPix,
      list.map((p) => p.txid),
      list.map((p) => p.chave ?? null),
      list.map((p) => p.conta ?? null),
    ],
  );
  const byN = new Map(rows.map((row) => [Number(row.n), settlementRow(row)]));
  return list.map((_, n) => byN.get(n + 1));
}

/** Payments' reads of their charges, coalesced as the attempts' are (the SPI boundary's batched path). */
export const cobrPaidReaderFor = perDatabase(
  (sql) =>
    new GroupCommit<CobrPaid, CobrForSettlement | undefined>({
      write: (list) => readCobrsPaid(sql, list),
      statementsInFlight: LIMITS.settlementStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
    }),
);

export interface CobrSettlement {
  charge: Pick<CobrRow, 'id' | 'atualizacao' | 'tentativas'> & { version: string };
  pix: Omit<ReceivedPixRow, 'id'>;
  ledger: { externalId: number; availableId: number };
  /** The received Pix's webhook event and the charge's `/cobr` event. */
  events: [NewJob<PixEventPayload>, NewJob<AccountEventPayload>];
}

/** The columns of a settlement statement's `input`, one array parameter each (`cobrSettlementParams`). */
const INPUT = [
  ['cobr_id', 'bigint'],
  ['version', 'text'],
  ['atualizacao', 'jsonb'],
  ['tentativas', 'jsonb'],
  ['end_to_end_id', 'text'],
  ['account_id', 'bigint'],
  ['txid', 'text'],
  ['chave', 'text'],
  ['amount_cents', 'bigint'],
  ['received_at', 'timestamptz'],
  ['pagador_cpf', 'text'],
  ['pagador_cnpj', 'text'],
  ['pagador_nome', 'text'],
  ['origin', 'text'],
  ['external_id', 'bigint'],
  ['available_id', 'bigint'],
  ['jobs', 'jsonb'],
] as const;

/**
 * The `input` of a statement settling recurring charges: `cobrSettlementParams` as parameters `$1`… and, after
 * them, the caller's own `extra` columns (name and type) from the next parameter on.
 */
export function cobrSettlementInput(extra: [string, string][] = []): string {
  const columns = [...INPUT, ...extra];
  return `input as (
       select * from unnest(${columns.map(([, type], n) => `$${n + 1}::${type}[]`).join(', ')})
         as i(${columns.map(([name]) => name).join(', ')}))`;
}

export function cobrSettlementParams(list: CobrSettlement[]): unknown[] {
  const column = <T>(value: (s: CobrSettlement) => T) => list.map(value);
  return [
    column((s) => s.charge.id),
    column((s) => s.charge.version),
    column((s) => JSON.stringify(s.charge.atualizacao)),
    column((s) => JSON.stringify(s.charge.tentativas satisfies TentativaRow[])),
    column((s) => s.pix.end_to_end_id),
    column((s) => s.pix.account_id),
    column((s) => s.pix.txid),
    column((s) => s.pix.chave),
    column((s) => s.pix.amount_cents),
    column((s) => s.pix.received_at),
    column((s) => s.pix.pagador_cpf),
    column((s) => s.pix.pagador_cnpj),
    column((s) => s.pix.pagador_nome),
    column((s) => s.pix.origin),
    column((s) => s.ledger.externalId),
    column((s) => s.ledger.availableId),
    column((s) => JSON.stringify([jobRecord(s.events[0]), jobRecord(s.events[1])])),
  ];
}

/**
 * What settling writes, as the CTEs of one statement over `input` (`cobrSettlementInput`): for each row of
 * `settling` (a relation over `input i` of the charges allowed to settle: the SPI boundary's claimed messages),
 * the charge CONCLUIDA with its attempt PAGA (only the version read, only if still ATIVA), its received Pix,
 * the `pix_recebido` entry and posted totals, and its webhook events. The statement ends with
 * `select i.cobr_id, pix.id from input i join pix on pix.end_to_end_id = i.end_to_end_id`
 * (`COBR_SETTLED`), and its caller hands the rows to `cobrsSettled`.
 */
export const cobrSettlementCtes = (settling: string) => `paid as (
       update recurring_charges c set status = 'CONCLUIDA', atualizacao = i.atualizacao, tentativas = i.tentativas,
         updated_at = i.received_at
       from ${settling} where c.id = i.cobr_id and c.status = 'ATIVA' and c.xmin = i.version::xid
       returning c.id),
     pix as (
       insert into received_pix (end_to_end_id, account_id, txid, chave, amount_cents, received_at, pagador_cpf,
         pagador_cnpj, pagador_nome, origin)
       select i.end_to_end_id, i.account_id, i.txid, i.chave, i.amount_cents, i.received_at, i.pagador_cpf,
         i.pagador_cnpj, i.pagador_nome, i.origin
       from input i join paid on paid.id = i.cobr_id
       returning id, end_to_end_id),
     ${PIX_RECEIVED_POSTING},
     -- Due now on the receiver's clock, stored on the service's, as enqueue does.
     job as (${outboxInsertSql({
       topic: 'j.topic',
       orderingKey: 'j.ordering_key',
       payload: 'j.payload',
       availableAt: 'j.available_at',
       createdAt: 'j.created_at',
       accountId: 'j.account_id',
       from: `input i join pix on pix.end_to_end_id = i.end_to_end_id,
         jsonb_to_recordset(i.jobs) as j(topic text, ordering_key text, payload jsonb, available_at timestamptz,
           created_at timestamptz, account_id bigint)`,
     })})`;

/** The last line of a settlement statement (`cobrSettlementCtes`). */
export const COBR_SETTLED = 'select i.cobr_id, pix.id from input i join pix on pix.end_to_end_id = i.end_to_end_id';

/**
 * After a settlement statement: each settlement's received Pix id, or undefined for a charge that was not
 * settled (no longer the version read, or not allowed by the statement's `settling`); the money moved logged
 * and the webhook lanes woken. The caller gives each charge at most once per statement.
 */
export function cobrsSettled(
  sql: Sql,
  list: CobrSettlement[],
  rows: { cobr_id: number; id: number }[],
): (number | undefined)[] {
  const ids = new Map(rows.map((r) => [Number(r.cobr_id), r.id]));
  const outcomes = list.map((s) => ids.get(s.charge.id));
  list.forEach((s, n) => outcomes[n] !== undefined && pixReceivedMoved(sql, s.pix));
  const settled = list.find((_, n) => outcomes[n] !== undefined);
  if (settled) {
    jobsEnqueued(sql, settled.events[0].topic);
    jobsEnqueued(sql, settled.events[1].topic);
  }
  return outcomes;
}

/** An outbox row as `jsonb_to_recordset` reads it in the write above. */
function jobRecord<P>(job: NewJob<P>) {
  const [topic, ordering_key, payload, available_at, created_at, account_id] = outboxRowValues(job);
  return { topic, ordering_key, payload: JSON.parse(payload) as unknown, available_at, created_at, account_id };
}
