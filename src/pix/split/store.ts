/** Storage of split configurations (current state plus every revision), charge links and distributions. */
import type { Sql } from '../../platform/db/database.ts';
import type { TipoCob } from '../loc/store.ts';
import type { SplitConfigBody } from './schemas.ts';
import type { ShareTipo } from './shares.ts';

export interface ConfigRow {
  id: number;
  account_id: number;
  config_id: string;
  revisao: number;
  status: 'ATIVA';
  txid: string;
}

export interface RevisionRow {
  split_config_id: number;
  revisao: number;
  txid: string;
  tipo: ShareTipo;
  body: SplitConfigBody;
}

/** One position of a revision: 0 is the receiver, then the beneficiaries in the order given. */
export interface ShareRow {
  position: number;
  account_id: number;
  valor_hundredths: number;
}

const CONFIG_COLUMNS = 'id, account_id, config_id, revisao, status, txid';

export async function findConfig(
  sql: Sql,
  accountId: number,
  configId: string,
  forUpdate = false,
): Promise<ConfigRow | undefined> {
  const { rows } = await sql.query<ConfigRow>(
    `select ${CONFIG_COLUMNS} from split_configs where account_id = $1 and config_id = $2${forUpdate ? ' for update' : ''}`,
    [accountId, configId],
  );
  return rows[0];
}

/** Creates the configuration row at revision 0, or returns undefined when (account, id) already exists. */
export async function insertConfig(
  sql: Sql,
  accountId: number,
  configId: string,
  txid: string,
  now: Date,
): Promise<ConfigRow | undefined> {
  const { rows } = await sql.query<ConfigRow>(
    `insert into split_configs (account_id, config_id, revisao, status, txid, created_at, updated_at) values ($1, $2, 0, 'ATIVA', $3, $4, $4)
     on conflict (account_id, config_id) do nothing returning ${CONFIG_COLUMNS}`,
    [accountId, configId, txid, now],
  );
  return rows[0];
}

export async function txidUsedByAnotherConfig(
  sql: Sql,
  accountId: number,
  txid: string,
  configId: string,
): Promise<boolean> {
  const { rows } = await sql.query(
    'select 1 from split_configs where account_id = $1 and txid = $2 and config_id <> $3',
    [accountId, txid, configId],
  );
  return rows.length > 0;
}

export interface RevisionWrite {
  revisao: number;
  txid: string;
  tipo: ShareTipo;
  body: SplitConfigBody;
  shares: { accountId: number; valorHundredths: number }[];
}

/** Writes a revision with its resolved shares and moves the configuration's current state to it. */
export async function writeRevision(sql: Sql, splitConfigId: number, w: RevisionWrite, now: Date): Promise<void> {
  await sql.query('update split_configs set revisao = $2, txid = $3, updated_at = $4 where id = $1', [
    splitConfigId,
    w.revisao,
    w.txid,
    now,
  ]);
  await sql.query(
    'insert into split_config_revisions (split_config_id, revisao, txid, tipo, body, created_at) values ($1, $2, $3, $4, $5::jsonb, $6)',
    [splitConfigId, w.revisao, w.txid, w.tipo, JSON.stringify(w.body), now],
  );
  for (const [position, share] of w.shares.entries()) {
    await sql.query(
      'insert into split_config_shares (split_config_id, revisao, position, account_id, valor_hundredths) values ($1, $2, $3, $4, $5)',
      [splitConfigId, w.revisao, position, share.accountId, share.valorHundredths],
    );
  }
}

export async function findRevision(sql: Sql, splitConfigId: number, revisao: number): Promise<RevisionRow | undefined> {
  const { rows } = await sql.query<RevisionRow>(
    'select split_config_id, revisao, txid, tipo, body from split_config_revisions where split_config_id = $1 and revisao = $2',
    [splitConfigId, revisao],
  );
  return rows[0];
}

export async function sharesOf(sql: Sql, splitConfigId: number, revisao: number): Promise<ShareRow[]> {
  const { rows } = await sql.query<ShareRow>(
    'select position, account_id, valor_hundredths from split_config_shares where split_config_id = $1 and revisao = $2 order by position',
    [splitConfigId, revisao],
  );
  return rows;
}

/** Accounts of this service by account number (favorecido.conta is unique across the service). */
export async function accountsByConta(
  sql: Sql,
  contas: string[],
): Promise<{ id: number; documento: string; conta: string }[]> {
  const { rows } = await sql.query<{ id: number; documento: string; conta: string }>(
    'select id, documento, conta from accounts where conta = any($1)',
    [contas],
  );
  return rows;
}

// --- links

/** Links (or re-links) a charge to a configuration revision. */
export async function upsertLink(
  sql: Sql,
  chargeId: number,
  splitConfigId: number,
  revisao: number,
  now: Date,
): Promise<void> {
  await sql.query(
    `insert into split_links (charge_id, split_config_id, revisao, linked_at) values ($1, $2, $3, $4)
     on conflict (charge_id) do update set split_config_id = excluded.split_config_id, revisao = excluded.revisao, linked_at = excluded.linked_at`,
    [chargeId, splitConfigId, revisao, now],
  );
}

export async function deleteLink(sql: Sql, chargeId: number): Promise<boolean> {
  const { rowCount } = await sql.query('delete from split_links where charge_id = $1', [chargeId]);
  return rowCount > 0;
}

/** The configuration linked to a charge, as `config` in reads shows it (the revision linked). */
export async function linkedConfigOf(sql: Sql, accountId: number, kind: TipoCob, txid: string) {
  // The charge found by (account_id, txid) alone, as findCharge does (migration 026).
  const { rows } = await sql.query<{
    kind: TipoCob;
    config_id: string;
    status: string;
    revisao: number;
    body: SplitConfigBody;
  }>(
    `select c.kind, s.config_id, s.status, r.revisao, r.body from split_links k
       join charges c on c.id = k.charge_id
       join split_configs s on s.id = k.split_config_id
       join split_config_revisions r on r.split_config_id = k.split_config_id and r.revisao = k.revisao
     where c.account_id = $1 and c.txid = $2`,
    [accountId, txid],
  );
  return rows[0]?.kind === kind ? rows[0] : undefined;
}

// --- distributions

export interface ApplicableSplit {
  split_config_id: number;
  revisao: number;
  tipo: ShareTipo;
}

export async function splitLinkedTo(sql: Sql, chargeId: number): Promise<ApplicableSplit | undefined> {
  const { rows } = await sql.query<ApplicableSplit>(
    `select k.split_config_id, k.revisao, r.tipo from split_links k
       join split_config_revisions r on r.split_config_id = k.split_config_id and r.revisao = k.revisao
     where k.charge_id = $1`,
    [chargeId],
  );
  return rows[0];
}

/** A Pix without a charge (key, static QR code) is split by the latest revision of the configuration with its txid. */
export async function splitForTxid(sql: Sql, accountId: number, txid: string): Promise<ApplicableSplit | undefined> {
  const { rows } = await sql.query<ApplicableSplit>(
    `select s.id as split_config_id, s.revisao, r.tipo from split_configs s
       join split_config_revisions r on r.split_config_id = s.id and r.revisao = s.revisao
     where s.account_id = $1 and s.txid = $2 and s.status = 'ATIVA'`,
    [accountId, txid],
  );
  return rows[0];
}

export async function insertDistribution(
  sql: Sql,
  d: {
    receivedPixId: number;
    split: ApplicableSplit;
    journalEntryId: number | null;
    shares: { accountId: number; amountCents: number }[];
  },
  now: Date,
): Promise<void> {
  const { rows } = await sql.query<{ id: number }>(
    `insert into split_distributions (received_pix_id, split_config_id, revisao, journal_entry_id, created_at) values ($1, $2, $3, $4, $5) returning id`,
    [d.receivedPixId, d.split.split_config_id, d.split.revisao, d.journalEntryId, now],
  );
  for (const [position, share] of d.shares.entries()) {
    await sql.query(
      'insert into split_distribution_shares (distribution_id, position, account_id, amount_cents) values ($1, $2, $3, $4)',
      [rows[0].id, position, share.accountId, share.amountCents],
    );
  }
}

export async function wasDistributed(sql: Sql, receivedPixId: number): Promise<boolean> {
  const { rows } = await sql.query('select 1 from split_distributions where received_pix_id = $1', [receivedPixId]);
  return rows.length > 0;
}

/** The account's split configurations, latest first (the console's list; the API reads one by id). */
export async function recentSplitConfigIds(sql: Sql, accountId: number, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ config_id: string }>(
    'select config_id from split_configs where account_id = $1 order by updated_at desc, id desc limit $2',
    [accountId, limit],
  );
  return rows.map((r) => r.config_id);
}

/** How a received Pix of this account was divided: each beneficiary's name, account number and amount. */
export async function distributionOfPix(
  sql: Sql,
  accountId: number,
  endToEndId: string,
): Promise<{ nome: string; conta: string; amount_cents: number }[]> {
  const { rows } = await sql.query<{ nome: string; conta: string; amount_cents: string | number }>(
    `select a.nome, a.conta, s.amount_cents from split_distribution_shares s
       join split_distributions d on d.id = s.distribution_id
       join received_pix p on p.id = d.received_pix_id
       join accounts a on a.id = s.account_id
      where p.account_id = $1 and p.end_to_end_id = $2 order by s.position`,
    [accountId, endToEndId],
  );
  return rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents) }));
}

export interface PositionShare {
  position: number;
  account_id: number;
  amount_cents: number;
}

/** Each position's share of a divided Pix, less what its refunds not refused take back; empty: not divided. */
export async function sharesLeftOfPix(sql: Sql, receivedPixId: number): Promise<PositionShare[]> {
  const { rows } = await sql.query<PositionShare>(
    `select s.position, s.account_id,
            s.amount_cents - coalesce((select sum(r.amount_cents) from split_refund_shares r
                                         join refunds f on f.id = r.refund_id
                                        where f.received_pix_id = d.received_pix_id and f.status <> 'NAO_REALIZADO'
                                          and r.position = s.position), 0) as amount_cents
       from split_distributions d join split_distribution_shares s on s.distribution_id = d.id
      where d.received_pix_id = $1 order by s.position`,
    [receivedPixId],
  );
  return rows.map((r) => ({ ...r, account_id: Number(r.account_id), amount_cents: Number(r.amount_cents) }));
}

export async function insertRefundShares(sql: Sql, refundId: number, shares: PositionShare[]): Promise<void> {
  await sql.query(
    `insert into split_refund_shares (refund_id, position, account_id, amount_cents)
     select $1, * from unnest($2::int[], $3::bigint[], $4::bigint[])`,
    [refundId, shares.map((s) => s.position), shares.map((s) => s.account_id), shares.map((s) => s.amount_cents)],
  );
}

export async function refundShares(sql: Sql, refundId: number): Promise<PositionShare[]> {
  const { rows } = await sql.query<PositionShare>(
    'select position, account_id, amount_cents from split_refund_shares where refund_id = $1 order by position',
    [refundId],
  );
  return rows.map((r) => ({ ...r, account_id: Number(r.account_id), amount_cents: Number(r.amount_cents) }));
}
