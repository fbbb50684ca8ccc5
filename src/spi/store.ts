/**
 * Storage of the SPI boundary's messages (migrations 028, 030): the inbound record and the outbound queue; and the
 * statements that credit inbound Pix to keys and pay charges with their messages' claims.
 */
import type { Sql } from '../platform/db/database.ts';
import type { KeySettlement } from '../pix/payments/key-settlement.ts';
import {
  KEY_HAS_WEBHOOK_SQL,
  keyVersionSql,
  settlementInput,
  settlementsWritten,
  settlementWritesSql,
  type InputColumn,
  type Settlement,
} from '../pix/payments/store.ts';
import type { ReceivedPixRow } from '../pix/received/store.ts';

export interface InboundClaim {
  msgId: string;
  kind: string;
  refId: string;
  accountId: number | null;
  receivedAt: Date;
}

/**
 * Claims a message for processing in the caller's transaction. Undefined: claimed, decide it. Otherwise the
 * answer already given to the same MsgId, or to a pacs.008 with the same end-to-end id or a pacs.004 with the
 * same RtrId (a concurrent copy waits
 * on the unique index until the first commits, then reads its answer).
 */
export async function claimInbound(sql: Sql, claim: InboundClaim): Promise<{ answer: string | null } | undefined> {
  const { rows } = await sql.query(
    `insert into spi_inbound (msg_id, kind, ref_id, account_id, received_at) values ($1, $2, $3, $4, $5)
     on conflict do nothing returning msg_id`,
    [claim.msgId, claim.kind, claim.refId, claim.accountId, claim.receivedAt],
  );
  if (rows.length) return undefined;
  const existing = await sql.query<{ answer: string | null }>(
    `select answer from spi_inbound where msg_id = $1 or (kind = $2 and kind <> 'pacs.002' and ref_id = $3)
     order by answer is null limit 1`,
    [claim.msgId, claim.kind, claim.refId],
  );
  return { answer: existing.rows[0]?.answer ?? null };
}

export async function setInboundAnswer(sql: Sql, msgId: string, answer: string): Promise<void> {
  await sql.query('update spi_inbound set answer = $2 where msg_id = $1', [msgId, answer]);
}

/** An accepted inbound pacs.004: the Pix it returns and the amount credited (what later returns add up to). */
export async function recordInboundReturn(sql: Sql, msgId: string, endToEndId: string, cents: number): Promise<void> {
  await sql.query('update spi_inbound set original_id = $2, amount_cents = $3 where msg_id = $1', [
    msgId,
    endToEndId,
    cents,
  ]);
}

export async function returnedCents(sql: Sql, endToEndId: string): Promise<number> {
  const { rows } = await sql.query<{ total: string }>(
    `select coalesce(sum(amount_cents), 0)::text as total from spi_inbound where kind = 'pacs.004' and original_id = $1`,
    [endToEndId],
  );
  return Number(rows[0].total);
}

/** A Pix this node sent through the SPI (its pacs.008 was queued), locked: its returns are decided one at a time. */
export async function lockSentThroughSpi(
  sql: Sql,
  endToEndId: string,
): Promise<{ accountId: number; amountCents: number; status: string } | undefined> {
  const { rows } = await sql.query<{ account_id: number; amount_cents: number; status: string }>(
    `select s.account_id, s.amount_cents, s.status from sent_pix s
      where s.end_to_end_id = $1 and exists (select 1 from spi_outbound o where o.sent_pix_id = s.id)
      for update of s`,
    [endToEndId],
  );
  const row = rows[0];
  return row && { accountId: Number(row.account_id), amountCents: Number(row.amount_cents), status: row.status };
}

export interface OutboundRow {
  id: number;
  account_id: number;
  kind: 'pacs.008' | 'pacs.004' | 'pacs.002';
  msg_id: string;
  ref_id: string;
  sent_pix_id: number | null;
  refund_id: number | null;
  xml: string;
  created_at: Date;
  acked_at: Date | null;
  answer_status: string | null;
  answered_at: Date | null;
}

const OUTBOUND_COLUMNS =
  'id, account_id, kind, msg_id, ref_id, sent_pix_id, refund_id, xml, created_at, acked_at, answer_status, answered_at';

/**
 * Told after the commit of every message queued (`Database.subscribe`): a relay in this process (the sandbox's
 * in-node SPI institution) takes the queue at once instead of polling it; a gateway outside polls GET /spi/saida.
 */
export const SPI_OUTBOUND_CHANNEL = 'spi.saida';

export async function insertOutbound(
  sql: Sql,
  row: Pick<
    OutboundRow,
    'account_id' | 'kind' | 'msg_id' | 'ref_id' | 'sent_pix_id' | 'refund_id' | 'xml' | 'created_at'
  >,
): Promise<OutboundRow> {
  const { rows } = await sql.query<OutboundRow>(
    `insert into spi_outbound (account_id, kind, msg_id, ref_id, sent_pix_id, refund_id, xml, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${OUTBOUND_COLUMNS}`,
    [row.account_id, row.kind, row.msg_id, row.ref_id, row.sent_pix_id, row.refund_id, row.xml, row.created_at],
  );
  sql.notifyAfterCommit(SPI_OUTBOUND_CHANNEL);
  return rows[0];
}

/** The oldest messages not yet acknowledged, in queue order (at-least-once: a taken message stays until acked). */
export async function pendingOutbound(sql: Sql, afterId: number, limit: number): Promise<OutboundRow[]> {
  const { rows } = await sql.query<OutboundRow>(
    `select ${OUTBOUND_COLUMNS} from spi_outbound where acked_at is null and id > $1 order by id limit $2`,
    [afterId, limit],
  );
  return rows;
}

/** Whether any message waits for the gateway's acknowledgement. */
export async function hasUnacknowledgedOutbound(sql: Sql): Promise<boolean> {
  const { rows } = await sql.query('select 1 from spi_outbound where acked_at is null limit 1');
  return rows.length > 0;
}

/** Acknowledges messages by id; returns the ids that exist (acknowledging twice is harmless). */
export async function ackOutbound(sql: Sql, ids: number[], now: Date): Promise<number[]> {
  const { rows } = await sql.query<{ id: number }>(
    'update spi_outbound set acked_at = coalesce(acked_at, $2) where id = any($1::bigint[]) returning id',
    [ids, now],
  );
  return rows.map((r) => Number(r.id));
}

/** The outbound message a pacs.002 answers, locked: its answer is recorded once. */
export async function lockOutboundByRef(sql: Sql, refId: string): Promise<OutboundRow | undefined> {
  const { rows } = await sql.query<OutboundRow>(
    `select ${OUTBOUND_COLUMNS} from spi_outbound where ref_id = $1 for update`,
    [refId],
  );
  return rows[0];
}

export async function lockOutboundById(sql: Sql, id: number): Promise<OutboundRow | undefined> {
  const { rows } = await sql.query<OutboundRow>(
    `select ${OUTBOUND_COLUMNS} from spi_outbound where id = $1 for update`,
    [id],
  );
  return rows[0];
}

export async function setOutboundAnswer(sql: Sql, id: number, status: string, at: Date): Promise<void> {
  await sql.query('update spi_outbound set answer_status = $2, answered_at = $3 where id = $1', [id, status, at]);
}

export async function outboundExists(sql: Sql, refId: string): Promise<boolean> {
  const { rows } = await sql.query('select 1 from spi_outbound where ref_id = $1', [refId]);
  return rows.length > 0;
}

/** The account a key of this pixd belongs to (removed keys included: the engine refuses them by name). */
export async function accountOfKey(sql: Sql, chave: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ account_id: number }>('select account_id from pix_keys where chave = $1', [chave]);
  return rows[0] ? Number(rows[0].account_id) : undefined;
}

export async function accountOfConta(sql: Sql, conta: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from accounts where conta = $1', [conta]);
  return rows[0] ? Number(rows[0].id) : undefined;
}

export async function chargeExists(sql: Sql, accountId: number, txid: string): Promise<boolean> {
  const { rows } = await sql.query('select 1 from charges where account_id = $1 and txid = $2', [accountId, txid]);
  return rows.length > 0;
}

/** A payment to a key decided on the settlement path (src/pix/payments/key-settlement.ts), with its message. */
export interface InboundCredit extends KeySettlement {
  msgId: string;
  /** The pacs.002 ACSP recorded as the message's answer. */
  answer: string;
}

/** A payment of a charge decided on the engine's settlement read (`chargeSettlement`), with its message. */
export interface InboundChargeCredit extends Settlement {
  /** The key the message names (the charge's) and its version as read (`keyVersionSql`). */
  key: { chave: string; version: string };
  msgId: string;
  answer: string;
}

/** The message's own columns of an inbound credit statement's `input`. */
const MESSAGE_COLUMNS: InputColumn<InboundCredit | InboundChargeCredit>[] = [
  ['msg_id', 'text', (c) => c.msgId],
  ['answer', 'text', (c) => c.answer],
  ['key_version', 'text', (c) => c.key.version],
];

/**
 * The keys the messages name, locked `for share` with their versions (`keyVersionSql`), and the claim of each
 * message (its MsgId, and its end-to-end id once) with its answer, for the messages in `from` whose key is still
 * the version read: a removal, a confirmation setting, new settings or a webhook registration either committed
 * before — the version differs: nothing is written for it — or waits for the statement. So the webhook rows the
 * statement sees are its key's as read (`KEY_HAS_WEBHOOK_SQL`). The keys are those of `from`'s messages, locked
 * after what `from` locks (a charge: docs/ledger.md, "Lock order").
 */
const claimSql = (from: string) => `keys as materialized (
       select k.chave, ${keyVersionSql('k')} as version from pix_keys k
       where k.chave in (select i.chave from ${from}) for share of k),
     claim as (
       insert into spi_inbound (msg_id, kind, ref_id, account_id, received_at, answer)
       select i.msg_id, 'pacs.008', i.end_to_end_id, i.account_id, i.received_at, i.answer
       from ${from} join keys on keys.chave = i.chave and keys.version = i.key_version
       on conflict do nothing returning msg_id)`;

type WrittenRow = { end_to_end_id: string; id: number; pending: boolean };

/**
 * Inbound pacs.008 messages to keys credited in one statement, atomic by itself, for one or many (coalesced by
 * credit.ts): each message claimed while its key is the version read (`claimSql`), and only a claimed message's
 * Pix recorded, posted and its webhook event enqueued (`settlementWritesSql`). Answers per message: credited, or
 * undefined (a copy, or a key that changed: the caller decides it on the locked path).
 */
export async function writeInboundCredits(sql: Sql, list: InboundCredit[]): Promise<(ReceivedPixRow | undefined)[]> {
  const input = settlementInput(list, MESSAGE_COLUMNS);
  const { rows } = await sql.query<WrittenRow>(
    `with ${input.cte},
     ${claimSql('input i')},
     ${settlementWritesSql('input i join claim on claim.msg_id = i.msg_id', KEY_HAS_WEBHOOK_SQL)}`,
    input.params,
  );
  return settlementsWritten(sql, list, rows);
}

/**
 * Inbound pacs.008 messages to charges (a key and its charge's txid) paid in one statement, as the engine's
 * `writeSettlements` pays them but with the message's claim: each charge row locked `for update` only while it
 * is ATIVA and the version read (`xmin`), its message claimed while its key is the version read too (`claimSql`),
 * and only for a claimed message the charge concluded, its Pix recorded, posted and its event enqueued. A copy
 * (its claim conflicts), a charge paid, revised or linked since the read, a key changed: nothing written for it,
 * undefined in its place (the caller decides it on the locked path). The caller gives each charge at most once.
 */
export async function writeInboundChargeCredits(
  sql: Sql,
  list: InboundChargeCredit[],
): Promise<(ReceivedPixRow | undefined)[]> {
  const input = settlementInput(list, [...MESSAGE_COLUMNS, ['version', 'text', (c) => c.charge.version]]);
  const { rows } = await sql.query<WrittenRow>(
    `with ${input.cte},
     payable as materialized (
       select c.id from charges c join input i on c.id = i.charge_id
       where c.status = 'ATIVA' and c.xmin = i.version::xid for update of c),
     ${claimSql('input i join payable on payable.id = i.charge_id')},
     paid as (
       update charges c set status = 'CONCLUIDA', updated_at = i.received_at
       from input i join claim on claim.msg_id = i.msg_id where c.id = i.charge_id
       returning c.id),
     ${settlementWritesSql('input i join paid on paid.id = i.charge_id', KEY_HAS_WEBHOOK_SQL)}`,
    input.params,
  );
  return settlementsWritten(sql, list, rows);
}

/** The MsgId of the inbound pacs.008 that delivered a Pix (its claim), to answer it later. */
export async function inboundCreditMsgId(sql: Sql, endToEndId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ msg_id: string }>(
    `select msg_id from spi_inbound where kind = 'pacs.008' and ref_id = $1`,
    [endToEndId],
  );
  return rows[0]?.msg_id;
}
