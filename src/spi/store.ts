/**
 * Storage of the SPI boundary's messages (migrations 028, 030): the inbound record and the outbound queue; and the
 * statement that credits inbound Pix to keys with their messages' claims.
 */
import type { Sql } from '../platform/db/database.ts';
import { PIX_RECEIVED_POSTING } from '../platform/ledger/ledger.ts';
import { jobsEnqueued, outboxInsertSql, outboxRowValues } from '../platform/outbox/jobs.ts';
import type { KeySettlement } from '../pix/payments/key-settlement.ts';
import { keyVersionSql, pixReceivedMoved } from '../pix/payments/store.ts';
import { insertReceivedPixFrom, type ReceivedPixRow } from '../pix/received/store.ts';

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

/**
 * Inbound pacs.008 messages to keys credited in one statement, atomic by itself, for one or many (coalesced by
 * credit.ts): each message is claimed (its MsgId, and its end-to-end id once) with its answer only while its key
 * and its settings are still the versions read (`keyVersionSql`; the key row locked `for share`, so a removal, a
 * confirmation setting or a webhook registration either committed before — the version differs: nothing is
 * written for it — or waits for this statement) — and only a claimed message's Pix is recorded, posted (`PIX_RECEIVED_POSTING`) and its webhook
 * event enqueued, stored done when its key has no webhook (docs/ledger.md, "Events with no webhook"). Answers
 * per message: credited, or undefined (a copy, or a key that changed: the caller decides it on the locked path).
 */
export async function writeInboundCredits(sql: Sql, list: InboundCredit[]): Promise<(ReceivedPixRow | undefined)[]> {
  const column = <T>(value: (c: InboundCredit) => T) => list.map(value);
  const jobs = column((c) => outboxRowValues(c.event));
  const { rows } = await sql.query<{ end_to_end_id: string; id: number; pending: boolean }>(
    `with input as (
       select *, null::bigint as charge_id, null::text as txid, null::jsonb as components
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[],
         $8::timestamptz[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::bigint[],
         $16::text[], $17::text[], $18::jsonb[], $19::timestamptz[], $20::timestamptz[], $21::bigint[])
         as i(msg_id, answer, key_version, end_to_end_id, account_id, chave, amount_cents, received_at, pagador_cpf,
           pagador_cnpj, pagador_nome, info_pagador, origin, external_id, available_id, topic, ordering_key, payload,
           available_at, created_at, job_account_id)),
     keys as materialized (
       select k.chave, ${keyVersionSql('k')} as version from pix_keys k where k.chave = any($22::text[]) for share of k),
     claim as (
       insert into spi_inbound (msg_id, kind, ref_id, account_id, received_at, answer)
       select i.msg_id, 'pacs.008', i.end_to_end_id, i.account_id, i.received_at, i.answer
       from input i join keys on keys.chave = i.chave and keys.version = i.key_version
       on conflict do nothing returning msg_id),
     pix as (${insertReceivedPixFrom('input i join claim on claim.msg_id = i.msg_id', 'id, end_to_end_id')}),
     ${PIX_RECEIVED_POSTING},
     routed as (
       select i.end_to_end_id, exists (select 1 from pix_webhooks w where w.chave = i.chave) as pending
       from input i join pix on pix.end_to_end_id = i.end_to_end_id),
     job as (${outboxInsertSql({
       topic: 'i.topic',
       orderingKey: 'i.ordering_key',
       payload: 'i.payload',
       availableAt: 'i.available_at',
       createdAt: 'i.created_at',
       accountId: 'i.job_account_id',
       from: 'input i join routed r on r.end_to_end_id = i.end_to_end_id',
       doneWhen: 'not r.pending',
     })})
     select pix.end_to_end_id, pix.id, routed.pending from pix join routed on routed.end_to_end_id = pix.end_to_end_id`,
    [
      column((c) => c.msgId),
      column((c) => c.answer),
      column((c) => c.key.version),
      column((c) => c.pix.end_to_end_id),
      column((c) => c.pix.account_id),
      column((c) => c.pix.chave),
      column((c) => c.pix.amount_cents),
      column((c) => c.pix.received_at),
      column((c) => c.pix.pagador_cpf),
      column((c) => c.pix.pagador_cnpj),
      column((c) => c.pix.pagador_nome),
      column((c) => c.pix.info_pagador),
      column((c) => c.pix.origin),
      column((c) => c.ledger.externalId),
      column((c) => c.ledger.availableId),
      ...[0, 1, 2, 3, 4, 5].map((n) => jobs.map((values) => values[n])),
      [...new Set(column((c) => c.key.chave))],
    ],
  );
  const written = new Map(rows.map((row) => [row.end_to_end_id, row]));
  let woken = false;
  return list.map((c) => {
    const row = written.get(c.pix.end_to_end_id);
    if (row === undefined) return undefined;
    pixReceivedMoved(sql, c.pix);
    // Only an event stored pending wakes the webhook lanes: one stored done has nothing to claim.
    if (row.pending && !woken) jobsEnqueued(sql, c.event.topic);
    woken ||= row.pending;
    return { id: Number(row.id), ...c.pix };
  });
}

/** The MsgId of the inbound pacs.008 that delivered a Pix (its claim), to answer it later. */
export async function inboundCreditMsgId(sql: Sql, endToEndId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ msg_id: string }>(
    `select msg_id from spi_inbound where kind = 'pacs.008' and ref_id = $1`,
    [endToEndId],
  );
  return rows[0]?.msg_id;
}
