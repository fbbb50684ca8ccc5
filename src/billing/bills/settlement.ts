/**
 * A bill payment's life after its request. The amount was held at the request (available → `bills`); on the
 * payment date (00:00 Brasília on the account's clock, at once for today) an outbox job moves it on, one step
 * per run of the job:
 *
 *   AGENDADO → EM_PROCESSAMENTO → EXECUTADO → LIQUIDADO       the held amount goes to `external:boleto`
 *                               │           → NAO_REALIZADO   the held amount goes back to the available balance
 *                               → LIQUIDADO | NAO_REALIZADO   a pixd boleto, paid on us in one transaction
 *
 * A bill of another institution is handed to it (`AppContext.billInstitution`, which accepted it at the request):
 * `EXECUTADO`, Efí's "sent to be settled", the hold still held. The same job, enqueued again with the hand-off,
 * then takes the institution's outcome: settled (with its protocol) or failed after all. A pixd boleto is paid on
 * us (on-us.ts: its charge is paid, its owner credited and notified) with nothing to hand over, so it has no
 * EXECUTADO. Every status change, the request's included, is POSTed to the account's bill-payment webhook through
 * the outbox (the webhook lanes, the Pix retry schedule). The job acts only on a payment in the status it expects
 * (delivered twice, it does nothing twice).
 */
import { brasiliaDayStart } from '../../platform/calendar.ts';
import type { Clock } from '../../platform/clock.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import type { BillInstitution } from '../../platform/extensions.ts';
import { randomHex } from '../../platform/ids.ts';
import { ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { attemptDelivery, type DeliveryDeps } from '../../platform/webhooks/delivery.ts';
import { PIX_RETRY_SCHEDULE } from '../../platform/webhooks/schedule.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import { findAccount } from '../../accounts/store.ts';
import { BillRefused } from './external.ts';
import { payOnUsBoleto } from './on-us.ts';
import type { BillPaymentStatus, PaymentView } from './schemas.ts';
import { findBillPayment, findBillWebhook, setBillPaymentStatus, type BillPaymentRow } from './store.ts';

type SettleJob = { paymentId: number };
type WebhookJob = { accountId: number; body: PaymentView };

export const BILL_SETTLE_TOPIC = defineTopic<SettleJob, AppContext>({
  name: 'billpay.settle',
  handler: ({ db, clock, billInstitution }) => settleHandler(db, clock, billInstitution),
});

export const BILL_WEBHOOK_TOPIC = defineTopic<WebhookJob, DeliveryDeps>({
  name: 'webhook.billpay',
  handler: (deps) => async (job) => {
    const { accountId, body } = job.payload;
    // Read when delivered: a webhook registered (or changed) after the change still hears of it; none, nothing.
    const webhook = await findBillWebhook(deps.db, accountId);
    if (!webhook) return { done: true };
    return attemptDelivery(deps, job, {
      accountId,
      url: webhook.url,
      body,
      timeoutMs: webhookSettings().deliveryTimeoutMs,
      schedule: PIX_RETRY_SCHEDULE,
    });
  },
});

export function paymentView(row: BillPaymentRow): PaymentView {
  return {
    idPagamento: String(row.id),
    codBarras: row.barcode,
    linhaDigitavel: row.linha_digitavel,
    valorPago: row.amount_cents,
    status: row.status,
    protocolo: row.protocolo,
    motivoRecusa: row.motivo_recusa,
    data: { solicitacao: row.requested_at.toISOString(), pagamento: row.payment_date },
    ...(row.descricao !== null && { descricao: row.descricao }),
  };
}

const MOVES: Record<BillPaymentStatus, readonly BillPaymentStatus[]> = {
  AGENDADO: ['EM_PROCESSAMENTO'],
  EM_PROCESSAMENTO: ['EXECUTADO', 'LIQUIDADO', 'NAO_REALIZADO'],
  EXECUTADO: ['LIQUIDADO', 'NAO_REALIZADO'],
  LIQUIDADO: [],
  CANCELADO: [],
  NAO_REALIZADO: [],
};

/** A status change (or, with the same status, the request) and its webhook call, in the caller's transaction. */
export async function movePayment(
  sql: Sql,
  row: BillPaymentRow,
  status: BillPaymentStatus,
  now: Date,
  changes: { protocolo?: string; motivoRecusa?: string; settledAt?: Date } = {},
): Promise<BillPaymentRow> {
  if (status !== row.status && !MOVES[row.status].includes(status))
    throw new Error(`bill payment ${row.id}: ${row.status} -> ${status}`);
  const moved = status === row.status ? row : await setBillPaymentStatus(sql, row.id, status, changes, now);
  await enqueue(sql, {
    topic: BILL_WEBHOOK_TOPIC,
    orderingKey: `billpay:${row.id}`,
    payload: { accountId: row.account_id, body: paymentView(moved) },
    accountId: row.account_id,
    availableAt: now,
    now,
  });
  return moved;
}

export function enqueueSettlement(sql: Sql, row: BillPaymentRow, now: Date) {
  const at = brasiliaDayStart(row.payment_date);
  return enqueue(sql, {
    topic: BILL_SETTLE_TOPIC,
    payload: { paymentId: row.id },
    accountId: row.account_id,
    availableAt: at > now ? at : now,
    now,
  });
}

const reference = (row: BillPaymentRow) => `bill_payment:${row.id}`;

/** The payment, locked, if it still waits to be paid; moved to EM_PROCESSAMENTO if it was scheduled. */
async function processing(sql: Sql, paymentId: number, now: Date): Promise<BillPaymentRow | undefined> {
  const row = await findBillPayment(sql, paymentId, { lock: true });
  if (row?.status === 'AGENDADO') return movePayment(sql, row, 'EM_PROCESSAMENTO', now);
  return row?.status === 'EM_PROCESSAMENTO' ? row : undefined;
}

/** The amount held for the bill leaves its holding account: to the bill's institution, or back to the payer. */
function releaseHeld(sql: Sql, row: BillPaymentRow, paid: boolean, now: Date) {
  return transfer(sql, {
    kind: paid ? 'pagamento_conta' : 'pagamento_conta_estorno',
    reference: reference(row),
    accountId: row.account_id,
    at: now,
    from: ledgerCode.bills(row.account_id),
    to: paid ? ledgerCode.externalBoleto : ledgerCode.available(row.account_id),
    amountCents: row.amount_cents,
  });
}

/** Paid: the held amount to the compensation. */
async function liquidate(sql: Sql, row: BillPaymentRow, protocolo: string, now: Date) {
  await releaseHeld(sql, row, true, now);
  await movePayment(sql, row, 'LIQUIDADO', now, { protocolo, settledAt: now });
}

/** Not made: the held amount back to the available balance, the reason on the payment. */
async function returnHold(sql: Sql, row: BillPaymentRow, motivo: string, now: Date) {
  await releaseHeld(sql, row, false, now);
  await movePayment(sql, row, 'NAO_REALIZADO', now, { motivoRecusa: motivo.slice(0, 400) });
}

/** A pixd boleto, paid on us: its protocol, or BillRefused (the transaction then rolls back). */
async function payOnUs(sql: Sql, row: BillPaymentRow, chargeId: number, now: Date): Promise<string> {
  const account = (await findAccount(sql, row.account_id))!;
  const document = account.documento.length === 14 ? { cnpj: account.documento } : { cpf: account.documento };
  await payOnUsBoleto(
    sql,
    { chargeId, amountCents: row.amount_cents, paidAt: now, payer: { nome: account.nome, ...document } },
    now,
  );
  return randomHex(16).toUpperCase();
}

/** The institution's outcome of a payment handed to it: settled, or failed after accepting it. */
async function takeOutcome(sql: Sql, institution: BillInstitution, row: BillPaymentRow, now: Date) {
  const outcome = await institution.settle(
    sql,
    {
      idPagamento: String(row.id),
      accountId: row.account_id,
      tipo: row.tipo,
      barcode: row.barcode,
      amountCents: row.amount_cents,
      paidCents: row.amount_cents,
    },
    now,
  );
  if ('refused' in outcome) await returnHold(sql, row, outcome.refused, now);
  else await liquidate(sql, row, outcome.protocolo, now);
}

function settleHandler(db: Database, clock: Clock, institution: BillInstitution) {
  return async (job: OutboxJob<SettleJob>): Promise<JobOutcome> => {
    try {
      await db.tx(async (sql) => {
        const waiting = await findBillPayment(sql, job.payload.paymentId);
        if (!waiting) return;
        const now = clock.forAccount(waiting.account_id).now();
        if (waiting.status === 'EXECUTADO') {
          const row = (await findBillPayment(sql, waiting.id, { lock: true }))!;
          if (row.status === 'EXECUTADO') await takeOutcome(sql, institution, row, now);
          return;
        }
        const row = await processing(sql, waiting.id, now);
        if (!row) return;
        if (row.on_us_charge_id !== null) {
          await liquidate(sql, row, await payOnUs(sql, row, row.on_us_charge_id, now), now);
          return;
        }
        // Handed over; this job, again, takes the outcome once the hand-off has committed.
        const handed = await movePayment(sql, row, 'EXECUTADO', now);
        await enqueueSettlement(sql, handed, now);
      });
    } catch (error) {
      if (!(error instanceof BillRefused)) throw error;
      await refuse(db, clock, job.payload.paymentId, error.message);
    }
    return { done: true };
  };
}

/** A pixd boleto that can no longer be paid: not made, in a transaction of its own (the attempt rolled back). */
async function refuse(db: Database, clock: Clock, paymentId: number, motivo: string) {
  await db.tx(async (sql) => {
    const waiting = await findBillPayment(sql, paymentId);
    if (!waiting) return;
    const now = clock.forAccount(waiting.account_id).now();
    const row = await processing(sql, paymentId, now);
    if (row) await returnHold(sql, row, motivo, now);
  });
}
