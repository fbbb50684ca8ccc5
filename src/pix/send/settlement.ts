/**
 * Settlement of a sent Pix, run by the outbox (`pix.send.settle`) after the request commits.
 *
 *   REALIZADO      the held amount leaves: `customer sending -> external:pix`; when the receiver is an
 *                  account of this pixd, the payment engine credits it in the same transaction (its
 *                  received Pix, balance, report, charge and webhook, exactly as any payment)
 *   NAO_REALIZADO  the receiver's side refused (the engine's refusal, or the other institution's): the
 *                  hold goes back, `customer sending -> customer available` (`estorno_pix_enviado`)
 *
 * Either way the payer key's webhook gets the outcome, enqueued in the transaction that settles. A pixd
 * receiver's refusal rolls the attempt back whole (the engine may have written part of a payment before
 * refusing) and is recorded in a second transaction; another institution's is recorded in the first, where
 * nothing else was written. A job delivered twice finds the send settled and does nothing.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { ledgerCode, lockCustomers } from '../../platform/ledger/ledger.ts';
import { defineTopic, type JobOutcome, type NewJob, type OutboxJob } from '../../platform/outbox/jobs.ts';
import type { AppContext } from '../../platform/context.ts';
import type { FaultHooks } from '../../platform/faults.ts';
import { receiveOrHold } from '../payments/engine.ts';
import { PaymentRefused } from '../payments/refusal.ts';
import { WEBHOOK_TOPICS } from '../webhook/events.ts';
import type { PixEventPayload } from '../webhook/payloads.ts';
import type { ExternalInstitution, ExternalSend } from '../../platform/extensions.ts';
import { lockSentForSettlement, settleSentWithEntry, type SentForSettlement, type SentPixRow } from './store.ts';
import { sentPixWebhook } from './view.ts';

/** Journal kinds of a send's settlement (the hold itself is written under SENT_PIX_KIND). */
export const SETTLEMENT_KIND = { done: 'pix_enviado_liquidado', returned: 'estorno_pix_enviado' } as const;

class ReceiverRefused extends Error {}

/** How a send ends: REALIZADO (the held amount leaves to the settlement account) or NAO_REALIZADO (it goes back). */
export interface SendOutcome {
  status: 'REALIZADO' | 'NAO_REALIZADO';
  at: Date;
  motivo: string | null;
}

/** What a send's outcome writes: the entry's kind and ledger accounts (`from -> to`), and the payer key's webhook event. */
export interface SendConclusion {
  kind: string;
  ledger: { codes: [string, string]; ids: [number | null, number | null] };
  event: NewJob<PixEventPayload>;
}

/**
 * The outcome's writes for a send in processing: REALIZADO moves the held amount to `external:pix`, NAO_REALIZADO
 * back to the payer's available balance; the payer key's webhook event (`{pix: [...]}` with the settled send, due
 * at once). Written by one statement per send (`settleSentWithEntry`) or per batch of answers (src/spi/answer-batch.ts).
 */
export function sendConclusion(
  locked: Pick<SentForSettlement, 'sent' | 'ledgerIds'>,
  outcome: SendOutcome,
): SendConclusion {
  const { sent, ledgerIds } = locked;
  const settled: SentPixRow = { ...sent, status: outcome.status, settled_at: outcome.at, motivo: outcome.motivo };
  const payload: PixEventPayload = {
    accountId: sent.account_id,
    chave: sent.payer_key,
    txid: null,
    envio: true,
    pix: [sentPixWebhook(settled, outcome.at)],
  };
  const to = outcome.status === 'REALIZADO' ? 'externalPix' : 'available';
  return {
    kind: outcome.status === 'REALIZADO' ? SETTLEMENT_KIND.done : SETTLEMENT_KIND.returned,
    ledger: {
      codes: [
        ledgerCode.sending(sent.account_id),
        to === 'externalPix' ? ledgerCode.externalPix : ledgerCode.available(sent.account_id),
      ],
      ids: [ledgerIds.sending, ledgerIds[to]],
    },
    event: { topic: WEBHOOK_TOPICS.pix, payload, accountId: sent.account_id, availableAt: outcome.at, now: outcome.at },
  };
}

/** The outcome, in one statement: the send's status, the entry that moves the held amount and the webhook event. */
function settle(sql: Sql, locked: SentForSettlement, outcome: SendOutcome): Promise<SentPixRow> {
  const { kind, ledger, event } = sendConclusion(locked, outcome);
  return settleSentWithEntry(sql, locked.sent, { ...outcome, kind }, ledger, event);
}

/**
 * Takes the payer's (and a pixd receiver's) account row, in id order, before any posting. A request holds
 * its account's row while it writes the hold; a settlement that posted first and then waited for that row
 * (the journal entry's foreign key takes a key-share lock on it) would deadlock with it. Ordered row locks
 * first, postings after: requests and settlements queue instead.
 */
async function lockParties(sql: Sql, sent: SentPixRow): Promise<void> {
  await lockCustomers(sql, [sent.account_id, ...(sent.receiver_account_id === null ? [] : [sent.receiver_account_id])]);
}

/** A send's settlement, enqueued in the request's transaction: the receiver's institution answers. */
export const SEND_SETTLE_TOPIC = defineTopic<{ sentPixId: number }, AppContext>({
  name: 'pix.send.settle',
  handler: (ctx) => sendSettlementHandler(ctx.db, ctx.clock, ctx.externalInstitution, ctx.faults),
});

/** Why the SPI gave up on a receiving institution that is down (pacs.002 AB03: timeout at the creditor's agent). */
const INSTITUTION_DOWN = 'Instituição do recebedor indisponível: o SPI não obteve resposta a tempo. (AB03)';

/**
 * The receiving institution as the payer's account asked the sandbox to play it (docs/faults.md): down, slow
 * (asked on the first attempt only: the job comes back `atrasoMs` later and settles as usual), or rejecting
 * with a chosen reason code. Undefined: it answers as it would.
 */
async function institutionFault(
  sql: Sql,
  faults: FaultHooks,
  sent: SentPixRow,
  attempt: number,
): Promise<{ refused: string } | { slowMs: number } | undefined> {
  const institution = attempt === 1 ? await faults.take(sql, sent.account_id, 'instituicao') : undefined;
  if (institution?.estado === 'fora') return { refused: INSTITUTION_DOWN };
  if (institution?.estado === 'lenta') return { slowMs: institution.atrasoMs };
  const rejected = await faults.take(sql, sent.account_id, 'envio');
  return rejected && { refused: rejected.motivo };
}

export function sendSettlementHandler(db: Database, clock: Clock, external: ExternalInstitution, faults?: FaultHooks) {
  return async (job: OutboxJob<{ sentPixId: number }>): Promise<JobOutcome> => {
    let refusal: string | undefined;
    let heldUntil: Date | undefined;
    try {
      await db.tx(async (sql) => {
        const locked = await lockSentForSettlement(sql, job.payload.sentPixId);
        const sent = locked?.sent;
        if (sent?.status !== 'EM_PROCESSAMENTO') return;
        await lockParties(sql, sent);
        const now = clock.forAccount(sent.account_id).now();
        if (sent.destination === 'pixd') {
          try {
            const reception = await receiveOrHold(sql, now, {
              target: sent.target!,
              amountCents: sent.amount_cents,
              payer: locked!.payer,
              infoPagador: sent.info_pagador ?? undefined,
              origin: 'pixd_transfer',
              endToEndId: sent.end_to_end_id,
            });
            // A participant's key: the send stays in processing, its amount held, until the participant decides
            // (the decision enqueues this job again, pix/dict/confirm.ts) or its deadline passes (this job's retry).
            if (reception.held) {
              heldUntil = reception.held.deadlineAt;
              return;
            }
          } catch (error) {
            if (error instanceof PaymentRefused) throw new ReceiverRefused(`${error.message} (${error.code})`);
            throw error;
          }
        } else {
          const fault = faults && (await institutionFault(sql, faults, sent, job.attempt));
          if (fault && 'slowMs' in fault) {
            heldUntil = new Date(now.getTime() + fault.slowMs);
            return;
          }
          const outcome = fault ?? (await external.settle(sql, externalSend(locked!), now));
          // Nothing was written for another institution's refusal: it settles here, with the fault it counted.
          if ('refused' in outcome) {
            await settle(sql, locked!, { status: 'NAO_REALIZADO', at: now, motivo: outcome.refused });
            return;
          }
          // Left through the SPI boundary: the send stays in processing, its amount held, until the pacs.002.
          if ('answersLater' in outcome) return;
        }
        await settle(sql, locked!, { status: 'REALIZADO', at: now, motivo: null });
      });
    } catch (error) {
      if (!(error instanceof ReceiverRefused)) throw error;
      refusal = error.message;
    }
    if (heldUntil) return { retryAt: heldUntil, error: 'aguardando a resposta do recebedor' };
    if (refusal !== undefined) {
      const refused = refusal;
      await db.tx((sql) => concludeSend(sql, clock, job.payload.sentPixId, { refused }));
    }
    return { done: true };
  };
}

function externalSend({ sent, payer, payerConta }: SentForSettlement): ExternalSend {
  return {
    sentPixId: sent.id,
    accountId: sent.account_id,
    endToEndId: sent.end_to_end_id,
    amountCents: sent.amount_cents,
    payer: { ...payer, conta: payerConta },
    favorecido: sent.favorecido,
    infoPagador: sent.info_pagador,
  };
}

/**
 * A send still in processing concluded by its receiver's answer, in the caller's transaction: the other
 * institution credited it (the held amount leaves) or refused it (the hold goes back). The SPI boundary calls it
 * with a pacs.002's outcome; a send already concluded is left as it is (a late or repeated answer changes nothing).
 */
export async function concludeSend(
  sql: Sql,
  clock: Clock,
  sentPixId: number,
  outcome: { credited: true } | { refused: string },
): Promise<boolean> {
  const locked = await lockSentForSettlement(sql, sentPixId);
  if (locked?.sent.status !== 'EM_PROCESSAMENTO') return false;
  await lockParties(sql, locked.sent);
  const at = clock.forAccount(locked.sent.account_id).now();
  if ('refused' in outcome) await settle(sql, locked, { status: 'NAO_REALIZADO', at, motivo: outcome.refused });
  else await settle(sql, locked, { status: 'REALIZADO', at, motivo: null });
  return true;
}
