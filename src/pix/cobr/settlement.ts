/**
 * Settlement of recurring charges, three outbox jobs on the charge's account clock:
 *
 *   cobr.ack     (at creation)      the payer's institution acknowledges: CRIADA -> ATIVA, attempt AGENDADA
 *   cobr.attempt (at 00:00 Brasília of an attempt's date)  the payer's institution pays or refuses the attempt:
 *                paid -> the Pix is received through the payment engine (ledger, GET /v2/pix, the report,
 *                refunds) and the charge is CONCLUIDA; refused -> the attempt is REJEITADA, and the charge
 *                REJEITADA unless its recurrence allows retries (PERMITE_3R_7D)
 *   cobr.expire  (the day after the retry window)  a charge still ATIVA becomes EXPIRADA
 *
 * The payer's institution decides (`AppContext.payerInstitution`): it refuses the attempt, or the attempt awaits
 * its pacs.008 at the SPI boundary (production: from the payer's institution outside; the sandbox: from its
 * simulated payer, src/sandbox/recurring-payer.ts), which settles it on the boundary's batched path
 * (src/spi/recurring-credit.ts, with `recurringSettlement` below) or through `settleRecurringPayment`, under the
 * charge's lock. The attempt's job decides on a read without lock and changes the charge only under its lock,
 * from the state it expects (delivered twice, it does nothing twice); the message's claim and the payment
 * engine's unique end-to-end id are the lines against paying twice.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { AppContext } from '../../platform/context.ts';
import type { PayerInstitution } from '../../platform/extensions.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { receivePix, receivedRow, type IncomingPix } from '../payments/engine.ts';
import { pixEventJob } from '../received/events.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import { keyRefusal } from '../settings/receiving.ts';
import { accountEventJob } from '../webhook/events.ts';
import { PaymentRefused } from '../payments/refusal.ts';
import { findRec, type RecRow } from '../rec/store.ts';
import { cobrViewOf, saveCobr, withAttemptStatus, withStatus } from './events.ts';
import { ledgerAccountIds, ledgerCode } from '../../platform/ledger/ledger.ts';
import { cobrSettlementReaderFor, type CobrForSettlement, type CobrSettlement } from './settlement-store.ts';
import { findCobr, findCobrById, settlementKey, type CobrRow } from './store.ts';

type Job = { cobrId: number; accountId: number };
type AttemptJob = Job & { tentativa: number };

export const COBR_TOPICS = {
  ack: defineTopic<Job>({ name: 'cobr.ack', handler: ({ db, clock }) => ackHandler(db, clock) }),
  attempt: defineTopic<AttemptJob, AppContext>({
    name: 'cobr.attempt',
    handler: ({ db, clock, payerInstitution }) => attemptHandler(db, clock, payerInstitution),
  }),
  expire: defineTopic<Job>({ name: 'cobr.expire', handler: ({ db, clock }) => expireHandler(db, clock) }),
};

const jobOf = (row: CobrRow): Job => ({ cobrId: row.id, accountId: row.account_id });

export function enqueueAcknowledgement(sql: Sql, row: CobrRow, now: Date) {
  return enqueue(sql, {
    topic: COBR_TOPICS.ack,
    payload: jobOf(row),
    accountId: row.account_id,
    availableAt: now,
    now,
  });
}

export function enqueueAttempt(sql: Sql, row: CobrRow, tentativa: number, at: Date, now: Date) {
  return enqueue(sql, {
    topic: COBR_TOPICS.attempt,
    payload: { ...jobOf(row), tentativa },
    accountId: row.account_id,
    availableAt: at,
    now,
  });
}

export function enqueueExpiry(sql: Sql, row: CobrRow, at: Date, now: Date) {
  return enqueue(sql, {
    topic: COBR_TOPICS.expire,
    payload: jobOf(row),
    accountId: row.account_id,
    availableAt: at,
    now,
  });
}

const DONE = { done: true } as const;

function ackHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Job>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const row = await findCobrById(sql, job.payload.cobrId, true);
      if (row?.status !== 'CRIADA') return;
      const now = clock.forAccount(row.account_id).now();
      await saveCobr(
        sql,
        {
          ...withStatus(row, 'ATIVA', now),
          tentativas: row.tentativas.map((t) =>
            t.status === 'SOLICITADA' ? withAttemptStatus(t, 'AGENDADA', now) : t,
          ),
        },
        now,
      );
    });
    return DONE;
  };
}

/** The attempt to settle, if the job still has one to act on. */
function pendingAttempt(row: CobrRow | undefined, index: number) {
  if (row?.status !== 'ATIVA') return undefined;
  const tentativa = row.tentativas[index];
  return tentativa?.status === 'AGENDADA' ? tentativa : undefined;
}

/** Who pays a recurring charge: the payer recorded at approval, else the recurrence's debtor. */
function payerOf(rec: Pick<RecRow, 'pagador' | 'body'>): IncomingPix['payer'] {
  const pagador = rec.pagador;
  const devedor = rec.body.vinculo.devedor;
  const cpf = pagador?.cpf ?? devedor.cpf;
  const cnpj = pagador?.cnpj ?? devedor.cnpj;
  return { nome: pagador?.nome ?? devedor.nome, ...(cpf && { cpf }), ...(cnpj && { cnpj }) };
}

/**
 * The two ledger accounts a paid attempt moves money between, as read with the charge; a receiver's first
 * payment creates its balance account first (empty, so creating it outside the write changes nothing).
 */
export async function ledgerIds(db: Database, row: CobrForSettlement): Promise<CobrSettlement['ledger']> {
  if (row.external_ledger_id && row.available_ledger_id)
    return { externalId: row.external_ledger_id, availableId: row.available_ledger_id };
  const available = ledgerCode.available(row.account_id);
  const ids = await ledgerAccountIds(db, [ledgerCode.externalPix, available]);
  return { externalId: ids.get(ledgerCode.externalPix)!, availableId: ids.get(available)! };
}

/** Why the receiver's side cannot take an attempt's Pix: no key to land it on, or the key's settings refuse it. */
function receiverRefusal(row: CobrForSettlement, payer: IncomingPix['payer']): string | undefined {
  if (!row.chave) return NO_KEY;
  const pix = { accountId: row.account_id, chave: row.chave, txid: row.txid, payer, fromStaticQrCode: false };
  return keyRefusal(row.key_settings, pix)?.message;
}

const NO_KEY = 'A conta recebedora não tem chave ativa para o recebimento.';

/**
 * A due attempt, decided on the charge as read without a lock (the reads of the attempts falling due together
 * share a statement): the payer's institution refuses it (REJEITADA, under the charge's lock) or it awaits the
 * payer's pacs.008, which the institution sends when it will (the sandbox's from a job it enqueues here); the
 * receiver's side refuses it first when it could not take the Pix (no key, the key's settings: AC06). A
 * recurrence no longer approved cancels the charge, under its lock.
 */
function attemptHandler(db: Database, clock: Clock, payerInstitution: PayerInstitution) {
  return async (job: OutboxJob<AttemptJob>): Promise<JobOutcome> => {
    const index = job.payload.tentativa;
    const row = await cobrSettlementReaderFor(db).submit(job.payload.cobrId);
    const tentativa = pendingAttempt(row, index);
    if (!row || !tentativa) return DONE;
    if (row.rec_status !== 'APROVADA') {
      await cancelForRecurrence(db, clock, job.payload);
      return DONE;
    }
    const now = clock.forAccount(row.account_id).now();
    const payer = payerOf({ pagador: row.rec_pagador, body: row.rec_body });
    const refusal = receiverRefusal(row, payer);
    if (refusal) {
      await refuseAttempt(db, clock, job.payload, 'AC06', refusal);
      return DONE;
    }
    const attempt = {
      accountId: row.account_id,
      txid: row.txid,
      idRec: row.id_rec,
      endToEndId: tentativa.endToEndId,
      amountCents: row.amount_cents,
      chave: row.chave!,
      payer,
    };
    const decision = await payerInstitution.recurringAttemptDue(db, attempt, now);
    if ('refused' in decision)
      await refuseAttempt(db, clock, job.payload, decision.refused.codigo, decision.refused.descricao);
    // Awaited: paid by its pacs.008 (src/spi/inbound.ts); none by the end of the window and the charge expires.
    return DONE;
  };
}

/** The attempt's recurrence is no longer approved: the charge CANCELADA, if its attempt is still pending. */
async function cancelForRecurrence(db: Database, clock: Clock, job: AttemptJob) {
  await db.tx(async (sql) => {
    const row = await findCobrById(sql, job.cobrId, true);
    if (!row || !pendingAttempt(row, job.tentativa)) return;
    const rec = await findRec(sql, row.account_id, row.id_rec, true);
    if (rec?.status === 'APROVADA') return;
    const now = clock.forAccount(row.account_id).now();
    await saveCobr(
      sql,
      {
        ...withStatus(row, 'CANCELADA', now),
        tentativas: row.tentativas.map((t, i) => (i === job.tentativa ? withAttemptStatus(t, 'CANCELADA', now) : t)),
        encerramento: {
          cancelamento: {
            solicitante: 'PSP_RECEBEDOR',
            codigo: 'ACCT',
            descricao: `A recorrência está ${rec?.status ?? 'ausente'}.`,
          },
        },
      },
      now,
    );
  });
}

/** The attempt of `row` a payment pays (its recurrence and its end-to-end id), if pending: its index. */
export function attemptPaidBy(
  row: CobrRow | undefined,
  payment: Pick<RecurringPayment, 'idRec' | 'endToEndId'>,
): number | undefined {
  const index = row?.tentativas.findIndex((t) => t.endToEndId === payment.endToEndId) ?? -1;
  return row?.id_rec === payment.idRec && pendingAttempt(row, index) ? index : undefined;
}

/**
 * A due charge's payment by its pacs.008, decided on the charge as read (`CobrForSettlement`) for the batched
 * statement (src/spi/recurring-credit.ts): the charge CONCLUIDA with
 * its attempt PAGA, the received Pix on the account's settlement key, its `/pix` and `/cobr` events. Undefined
 * when the read alone cannot decide it (the recurrence not approved, another amount, a split, no key, settings
 * that refuse): the locked path then does, with the same rules.
 */
export function recurringSettlement(
  row: CobrForSettlement,
  index: number,
  payment: Pick<RecurringPayment, 'amountCents' | 'payer'>,
  ledger: CobrSettlement['ledger'],
  now: Date,
): CobrSettlement | undefined {
  if (row.rec_status !== 'APROVADA' || payment.amountCents !== row.amount_cents || row.split) return undefined;
  if (receiverRefusal(row, payment.payer) !== undefined) return undefined;
  const chave = row.chave!;
  const paid: CobrRow = {
    ...withStatus(row, 'CONCLUIDA', now),
    tentativas: row.tentativas.map((t, i) => (i === index ? withAttemptStatus(t, 'PAGA', now) : t)),
  };
  const pix = receivedRow(
    {
      target: { kind: 'key', chave, txid: row.txid },
      payer: payment.payer,
      origin: 'spi',
      endToEndId: row.tentativas[index].endToEndId,
    },
    now,
    { accountId: row.account_id, chargeId: null, txid: row.txid, chave },
    row.amount_cents,
    undefined,
  );
  const view = cobrViewOf(paid, { nome: row.account_nome, documento: row.account_documento });
  return {
    charge: { id: row.id, version: row.version, atualizacao: paid.atualizacao, tentativas: paid.tentativas },
    pix,
    ledger,
    events: [pixEventJob(pix, [], now), accountEventJob('cobr', row.account_id, view, row.txid, now)],
  };
}

/**
 * The attempt paid by its pacs.008: the Pix received through the engine on the account's settlement key (the
 * engine refuses what its rules refuse), the charge CONCLUIDA.
 */
async function payAttempt(
  sql: Sql,
  now: Date,
  row: CobrRow,
  index: number,
  payer: IncomingPix['payer'],
): Promise<ReceivedPixRow> {
  const chave = await settlementKey(sql, row.account_id);
  if (!chave) throw new PaymentRefused('chave_inexistente', NO_KEY);
  const received = await receivePix(sql, now, {
    target: { kind: 'key', chave, txid: row.txid },
    amountCents: row.amount_cents,
    payer,
    origin: 'spi',
    endToEndId: row.tentativas[index].endToEndId,
  });
  await saveCobr(
    sql,
    {
      ...withStatus(row, 'CONCLUIDA', now),
      tentativas: row.tentativas.map((t, i) => (i === index ? withAttemptStatus(t, 'PAGA', now) : t)),
    },
    now,
  );
  return received;
}

/** A payer's pacs.008 for a recurring charge, as the SPI boundary reads it (src/spi/inbound.ts). */
export interface RecurringPayment {
  accountId: number | undefined;
  txid: string | undefined;
  idRec: string;
  endToEndId: string;
  amountCents: number;
  payer: IncomingPix['payer'];
}

/**
 * Production: the payer's institution pays an attempt with a pacs.008 naming the recurrence (idRec), the charge
 * (txid) and the attempt's end-to-end id. Settles it in the caller's transaction like a paid attempt, or refuses
 * (PaymentRefused: the boundary answers RJCT) a payment that matches no attempt due, or the wrong amount.
 */
export async function settleRecurringPayment(sql: Sql, now: Date, payment: RecurringPayment): Promise<ReceivedPixRow> {
  const row =
    payment.accountId === undefined || !payment.txid
      ? undefined
      : await findCobr(sql, payment.accountId, payment.txid, true);
  const index = attemptPaidBy(row, payment);
  if (!row || index === undefined)
    throw new PaymentRefused(
      'cobranca_inexistente',
      `Nenhuma tentativa agendada da recorrência ${payment.idRec} com este endToEndId.`,
    );
  const rec = await findRec(sql, row.account_id, row.id_rec, true);
  if (rec?.status !== 'APROVADA')
    throw new PaymentRefused('cobranca_removida', `A recorrência está ${rec?.status ?? 'ausente'}.`);
  if (payment.amountCents !== row.amount_cents)
    throw new PaymentRefused('valor_divergente', `O valor difere do valor da cobrança recorrente ${row.txid}.`);
  return payAttempt(sql, now, row, index, payment.payer);
}

/** A failed attempt: REJEITADA; the charge too when its recurrence allows no retry. */
async function refuseAttempt(db: Database, clock: Clock, job: AttemptJob, codigo: string, descricao: string) {
  await db.tx(async (sql) => {
    const row = await findCobrById(sql, job.cobrId, true);
    if (!row || !pendingAttempt(row, job.tentativa)) return;
    const now = clock.forAccount(row.account_id).now();
    const rejeicao = { codigo, descricao: descricao.slice(0, 400) };
    const tentativas = row.tentativas.map((t, i) =>
      i === job.tentativa ? { ...withAttemptStatus(t, 'REJEITADA', now), rejeicao } : t,
    );
    const retriesLeft =
      row.politica_retentativa === 'PERMITE_3R_7D' &&
      tentativas.filter((t) => t.tipo === 'RIFL').length < LIMITS.cobrRetriesMax;
    await saveCobr(
      sql,
      retriesLeft
        ? { ...row, tentativas }
        : { ...withStatus(row, 'REJEITADA', now), tentativas, encerramento: { rejeicao } },
      now,
    );
  });
}

function expireHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Job>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const row = await findCobrById(sql, job.payload.cobrId, true);
      if (row?.status !== 'ATIVA') return;
      const now = clock.forAccount(row.account_id).now();
      // A retry still due today or later keeps the charge open (it expires after that attempt fails).
      if (row.tentativas.some((t) => t.status === 'AGENDADA' && t.dataLiquidacao >= brasiliaDate(now))) return;
      await saveCobr(
        sql,
        {
          ...withStatus(row, 'EXPIRADA', now),
          tentativas: row.tentativas.map((t) => (t.status === 'AGENDADA' ? withAttemptStatus(t, 'EXPIRADA', now) : t)),
        },
        now,
      );
    });
    return DONE;
  };
}
