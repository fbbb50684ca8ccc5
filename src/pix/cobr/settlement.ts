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
 * The payer's institution decides (`AppContext.payerInstitution`): the sandbox's simulated payer pays or refuses
 * at once (src/sandbox/payer.ts); in production the attempt waits for the payer's pacs.008 at the SPI boundary,
 * which settles it through `settleRecurringPayment` below. Each job locks the charge and acts only from the state
 * it expects (delivered twice, it does nothing twice); the payment engine's unique end-to-end id is the last line
 * against paying twice.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { AppContext } from '../../platform/context.ts';
import type { PayerInstitution } from '../../platform/extensions.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { receivePix, receivedRow, type IncomingPix } from '../payments/engine.ts';
import { pixEventJob } from '../received/events.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import { keyRefusal } from '../settings/receiving.ts';
import { accountEventJob } from '../webhook/events.ts';
import { PaymentRefused } from '../payments/refusal.ts';
import { findRec, type RecRow } from '../rec/store.ts';
import { cobrViewOf, saveCobr, withAttemptStatus, withStatus } from './events.ts';
import { ledgerAccountIds, ledgerCode } from '../../platform/ledger/ledger.ts';
import {
  cobrSettlementBatcherFor,
  cobrSettlementReaderFor,
  type CobrForSettlement,
  type CobrSettlement,
} from './settlement-store.ts';
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

class AttemptRefused extends Error {
  constructor(
    readonly codigo: string,
    message: string,
  ) {
    super(message);
  }
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
async function ledgerIds(db: Database, row: CobrForSettlement): Promise<CobrSettlement['ledger']> {
  if (row.external_ledger_id && row.available_ledger_id)
    return { externalId: row.external_ledger_id, availableId: row.available_ledger_id };
  const available = ledgerCode.available(row.account_id);
  const ids = await ledgerAccountIds(db, [ledgerCode.externalPix, available]);
  return { externalId: ids.get(ledgerCode.externalPix)!, availableId: ids.get(available)! };
}

/**
 * The common case of a due attempt, batched: read without locks, decide, and submit the whole settlement to
 * the group commit, so attempts falling due together (a day's charges, when the clock passes 00:00) share
 * statements instead of queueing one by one on the receiver's balance. Returns false when this path does not
 * apply (the recurrence is no longer approved, the attempt is to fail, a split, settings that may refuse, no
 * ledger account yet) or the charge changed meanwhile: the locked path below then decides, with the same rules.
 * A recurrence cancelled while its charge is being settled is ordered after the payment.
 */
async function settleBatched(db: Database, clock: Clock, payerInstitution: PayerInstitution, job: AttemptJob) {
  const row = await cobrSettlementReaderFor(db).submit(job.cobrId);
  const tentativa = pendingAttempt(row, job.tentativa);
  if (!row || !tentativa) return false;
  if (row.rec_status !== 'APROVADA') return false;
  const decision = payerInstitution.recurringAttemptDue({ amountCents: row.amount_cents });
  if (!('pays' in decision)) return false;
  if (!row.chave || row.split) return false;
  const ledger = await ledgerIds(db, row);
  const now = clock.forAccount(row.account_id).now();
  const rec = { pagador: row.rec_pagador, body: row.rec_body };
  const payer = payerOf(rec);
  const chave = row.chave;
  const refusal = keyRefusal(row.key_settings, {
    accountId: row.account_id,
    chave,
    txid: row.txid,
    payer,
    fromStaticQrCode: false,
  });
  if (refusal) return false;
  const paid: CobrRow = {
    ...withStatus(row, 'CONCLUIDA', now),
    tentativas: row.tentativas.map((t, i) => (i === job.tentativa ? withAttemptStatus(t, 'PAGA', now) : t)),
  };
  const pix = receivedRow(
    {
      target: { kind: 'key', chave, txid: row.txid },
      payer,
      origin: decision.origin,
      endToEndId: tentativa.endToEndId,
    },
    now,
    { accountId: row.account_id, chargeId: null, txid: row.txid, chave },
    row.amount_cents,
    undefined,
  );
  const view = cobrViewOf(paid, { nome: row.account_nome, documento: row.account_documento });
  try {
    const settled = await cobrSettlementBatcherFor(db).submit({
      charge: { id: row.id, version: row.version, atualizacao: paid.atualizacao, tentativas: paid.tentativas },
      pix,
      ledger,
      events: [pixEventJob(pix, [], now), accountEventJob('cobr', row.account_id, view, row.txid, now)],
    });
    return settled !== undefined;
  } catch (error) {
    // The same end-to-end id already received (a delivery racing another): the locked path sees it settled.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

function attemptHandler(db: Database, clock: Clock, payerInstitution: PayerInstitution) {
  return async (job: OutboxJob<AttemptJob>): Promise<JobOutcome> => {
    const index = job.payload.tentativa;
    if (await settleBatched(db, clock, payerInstitution, job.payload)) return DONE;
    try {
      await db.tx(async (sql) => {
        const row = await findCobrById(sql, job.payload.cobrId, true);
        const tentativa = pendingAttempt(row, index);
        if (!row || !tentativa) return;
        const now = clock.forAccount(row.account_id).now();
        const rec = await findRec(sql, row.account_id, row.id_rec, true);
        if (rec?.status !== 'APROVADA') {
          await saveCobr(
            sql,
            {
              ...withStatus(row, 'CANCELADA', now),
              tentativas: row.tentativas.map((t, i) => (i === index ? withAttemptStatus(t, 'CANCELADA', now) : t)),
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
          return;
        }
        const decision = payerInstitution.recurringAttemptDue({ amountCents: row.amount_cents });
        if ('refused' in decision) throw new AttemptRefused(decision.refused.codigo, decision.refused.descricao);
        // Production: the payer's institution pays with a pacs.008 (settleRecurringPayment); none by the end of
        // the window and the charge expires (cobr.expire).
        if ('awaits' in decision) return;
        await payAttempt(sql, now, row, index, { payer: payerOf(rec), origin: decision.origin });
      });
    } catch (error) {
      if (error instanceof AttemptRefused) await refuseAttempt(db, clock, job.payload, error.codigo, error.message);
      else if (error instanceof PaymentRefused) await refuseAttempt(db, clock, job.payload, 'AC06', error.message);
      else throw error;
    }
    return DONE;
  };
}

/** The attempt paid: the Pix received through the engine on the account's settlement key, the charge CONCLUIDA. */
async function payAttempt(
  sql: Sql,
  now: Date,
  row: CobrRow,
  index: number,
  from: Pick<IncomingPix, 'payer' | 'origin'>,
): Promise<ReceivedPixRow> {
  const chave = await settlementKey(sql, row.account_id);
  if (!chave) throw new AttemptRefused('AC06', 'A conta recebedora não tem chave ativa para o recebimento.');
  const received = await receivePix(sql, now, {
    target: { kind: 'key', chave, txid: row.txid },
    amountCents: row.amount_cents,
    ...from,
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
  const index = row?.tentativas.findIndex((t) => t.endToEndId === payment.endToEndId) ?? -1;
  if (!row || row.id_rec !== payment.idRec || !pendingAttempt(row, index))
    throw new PaymentRefused(
      'cobranca_inexistente',
      `Nenhuma tentativa agendada da recorrência ${payment.idRec} com este endToEndId.`,
    );
  const rec = await findRec(sql, row.account_id, row.id_rec, true);
  if (rec?.status !== 'APROVADA')
    throw new PaymentRefused('cobranca_removida', `A recorrência está ${rec?.status ?? 'ausente'}.`);
  if (payment.amountCents !== row.amount_cents)
    throw new PaymentRefused('valor_divergente', `O valor difere do valor da cobrança recorrente ${row.txid}.`);
  try {
    return await payAttempt(sql, now, row, index, { payer: payment.payer, origin: 'spi' });
  } catch (error) {
    if (error instanceof AttemptRefused) throw new PaymentRefused('chave_inexistente', error.message);
    throw error;
  }
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
