/**
 * Storage of the answers to sends that left through the SPI boundary, a batch at a time (answer-batch.ts): the
 * read of the messages answered with their sends, and the one statement that records the answers and concludes
 * the sends.
 */
import type { Sql } from '../platform/db/database.ts';
import { asLedgerError, entriesCtes, ledgerCode } from '../platform/ledger/ledger.ts';
import { moneyMoved } from '../platform/logging.ts';
import { jobsEnqueued, outboxColumnsOf, outboxInsertSql, outboxRowValues } from '../platform/outbox/jobs.ts';
import type { SendConclusion, SendOutcome } from '../pix/send/settlement.ts';
import { sendLedgerIdsSql, sentPixColumnsOf, type SentForSettlement, type SentPixRow } from '../pix/send/store.ts';

/** An outbound pacs.008 (a send) as its answer finds it, unlocked: its send and the send's ledger account ids. */
export interface AnsweredSend extends Pick<SentForSettlement, 'sent' | 'ledgerIds'> {
  outboundId: number;
  /** The status an earlier answer recorded (the message is answered once), or null. */
  answerStatus: string | null;
}

/**
 * The outbound pacs.008 messages of sends named by their end-to-end ids (what a pacs.002 answers), in one read
 * that takes no lock; undefined for an id of no such message (a pacs.004's RtrId, a held Pix's pacs.002, or none).
 */
export async function readAnsweredSends(sql: Sql, refIds: string[]): Promise<(AnsweredSend | undefined)[]> {
  const { rows } = await sql.query<
    SentPixRow & {
      ref_id: string;
      outbound_id: number;
      answer_status: string | null;
      sending_id: number | null;
      available_id: number | null;
      external_id: number | null;
    }
  >(
    `select r.ref_id, o.id as outbound_id, o.answer_status, ${sentPixColumnsOf('s')}, ${sendLedgerIdsSql('s', '$2')}
     from unnest($1::text[]) as r(ref_id)
       join spi_outbound o on o.ref_id = r.ref_id and o.kind = 'pacs.008'
       join sent_pix s on s.id = o.sent_pix_id`,
    [refIds, ledgerCode.externalPix],
  );
  const found = new Map(
    rows.map(({ ref_id, outbound_id, answer_status, sending_id, available_id, external_id, ...sent }) => [
      ref_id,
      {
        outboundId: Number(outbound_id),
        answerStatus: answer_status,
        sent,
        ledgerIds: { sending: sending_id, available: available_id, externalPix: external_id },
      },
    ]),
  );
  return refIds.map((refId) => found.get(refId));
}

/** An answer to record and the send it concludes (`sendConclusion`), its ledger accounts' ids all known. */
export interface SendAnswer {
  outboundId: number;
  answerStatus: string;
  sent: SentPixRow;
  outcome: SendOutcome;
  conclusion: SendConclusion & { ledger: { ids: [number, number] } };
}

/**
 * Answers to sends recorded in one statement, atomic by itself, for one or many: each outbound message not yet
 * answered gets its answer (its row locked, in id order), and its send, if still in processing (locked next, in
 * id order), is concluded as `settleSentWithEntry` concludes one — its status, the entry moving the held amount
 * (`entriesCtes`; the posted totals locked in id order after the documents, docs/ledger.md "Lock order") and the
 * payer key's webhook event. Answers per answer whether it was recorded (false: another answer was first).
 */
export async function writeSendAnswers(sql: Sql, list: SendAnswer[]): Promise<boolean[]> {
  const column = <T>(value: (a: SendAnswer) => T) => list.map(value);
  const jobs = column((a) => outboxRowValues(a.conclusion.event));
  let rows: { outbound_id: number; settled: boolean }[];
  try {
    ({ rows } = await sql.query<{ outbound_id: number; settled: boolean }>(
      `with input as (
         select * from unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::timestamptz[], $6::text[],
           $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[],
           $13::text[], $14::text[], $15::jsonb[], $16::timestamptz[], $17::timestamptz[], $18::bigint[])
           as i(outbound_id, answer_status, sent_pix_id, status, at, motivo, kind, reference, account_id, from_id, to_id,
             amount_cents, topic, ordering_key, payload, available_at, created_at, job_account_id)),
       outbound as materialized (
         select o.id from spi_outbound o join input i on i.outbound_id = o.id
         where o.answer_status is null order by o.id for update of o),
       sent as materialized (
         select s.id from sent_pix s join input i on i.sent_pix_id = s.id join outbound on outbound.id = i.outbound_id
         where s.status = 'EM_PROCESSAMENTO' order by s.id for update of s),
       answered as (
         update spi_outbound o set answer_status = i.answer_status, answered_at = i.at
         from input i join outbound on outbound.id = i.outbound_id where o.id = outbound.id returning o.id),
       settled as (
         update sent_pix s set status = i.status, settled_at = i.at, motivo = i.motivo
         from input i join sent on sent.id = i.sent_pix_id where s.id = sent.id returning s.id),
       postings as (
         select i.kind, i.reference, i.account_id, i.at, l.ledger_account_id, l.amount_cents
         from input i join settled on settled.id = i.sent_pix_id,
           lateral (values (i.from_id, -i.amount_cents), (i.to_id, i.amount_cents)) as l(ledger_account_id, amount_cents)),
       ${entriesCtes({ postings: 'postings', accountId: 'p.account_id', at: 'p.at' })},
       job as (${outboxInsertSql({
         ...outboxColumnsOf('i'),
         from: 'input i join settled on settled.id = i.sent_pix_id',
         lock: 'for share',
       })})
       select answered.id as outbound_id, settled.id is not null as settled
       from answered join input i on i.outbound_id = answered.id left join settled on settled.id = i.sent_pix_id`,
      [
        column((a) => a.outboundId),
        column((a) => a.answerStatus),
        column((a) => a.sent.id),
        column((a) => a.outcome.status),
        column((a) => a.outcome.at),
        column((a) => a.outcome.motivo),
        column((a) => a.conclusion.kind),
        column((a) => a.sent.end_to_end_id),
        column((a) => a.sent.account_id),
        column((a) => a.conclusion.ledger.ids[0]),
        column((a) => a.conclusion.ledger.ids[1]),
        column((a) => a.sent.amount_cents),
        ...[0, 1, 2, 3, 4, 5].map((n) => jobs.map((values) => values[n])),
      ],
    ));
  } catch (error) {
    throw asLedgerError(error, { kind: list[0].conclusion.kind, reference: list[0].sent.end_to_end_id });
  }
  const answered = new Map(rows.map((row) => [Number(row.outbound_id), row.settled]));
  const settled = list.filter((a) => answered.get(a.outboundId));
  for (const a of settled)
    moneyMoved(sql, {
      kind: a.conclusion.kind,
      reference: a.sent.end_to_end_id,
      accountId: a.sent.account_id,
      amountCents: a.sent.amount_cents,
    });
  // Every event is of one topic (the payer key's Pix webhook): one wake for the batch.
  if (settled.length) jobsEnqueued(sql, settled[0].conclusion.event.topic);
  return list.map((a) => answered.has(a.outboundId));
}
