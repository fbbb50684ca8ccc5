/**
 * The one payment engine. Every incoming Pix — a pacs.008 at the SPI boundary (the sandbox payer's too), a
 * transfer between pixd accounts, the participant-side confirmations — is decided by its rules: find what is
 * paid, check it is payable, record the received Pix, conclude the charge, post the ledger entry and enqueue
 * the webhook event.
 *
 * Two paths, one set of rules. The settlement path (a charge or dynamic QR code, no split, ledger accounts
 * already there: nearly every payment) is two statements and needs no transaction: one read, then one write
 * that pays only the charge row version the read saw (store.ts); its decision (`chargeSettlement`) is also the
 * SPI boundary's, whose statement claims the message beside the payment (src/spi/credit.ts). Everything else,
 * and a payment whose charge changed between the two, takes the locked path: the charge row locked for the
 * transaction, then one statement per step. Either way "paid at most once" holds under any concurrency: the
 * write's compare-and-set or the row lock, and a unique index behind both.
 */
import type { Sql } from '../../platform/db/database.ts';
import { transfer, ledgerCode } from '../../platform/ledger/ledger.ts';
import { newEndToEndId } from '../../platform/institution.ts';
import { formatAmount } from '../../platform/money.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { dueAmountOn, lastPayableDate } from '../cobv/amount.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import type { CobBody } from '../cob/schemas.ts';
import { insertReceivedPix, type PixOrigin, type ReceivedPixRow } from '../received/store.ts';
import { enqueuePixEvent, pixEventJob } from '../received/events.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { distributeSplit, prepareSplit } from '../split/distribute.ts';
import { keyRefusal, receivingRefusal } from '../settings/receiving.ts';
import { PaymentRefused } from './refusal.ts';
import { boletoPaidByPix } from '../../billing/boletos/pix-paid.ts';
import {
  lockChargeForPayment,
  readChargeForSettlement,
  writeSettlements,
  type ChargeForSettlement,
  type PayableCharge,
  type Settlement,
} from './store.ts';
import { settlementBatcherFor, settlementReaderFor } from './settlement-batcher.ts';
import { CONFIRMATION_TIMEOUT_ERROR, findConfirmation, holdPix, type HeldPix } from './holds.ts';
import type { IncomingPix, PaymentTarget } from './types.ts';

export type { IncomingPix, PaymentTarget } from './types.ts';

/** What the engine did with an incoming Pix: credited it, or held it for the receiving participant (holds.ts). */
export type Reception = { received: ReceivedPixRow; held?: undefined } | { held: HeldPix; received?: undefined };

/** Amount the charge asks for at `now`, and its components for due charges. */
export function amountDue(
  charge: Pick<PayableCharge, 'kind' | 'amount_cents' | 'body'>,
  now: Date,
): { cents: number; components?: Record<string, number>; anyAmount: boolean } {
  if (charge.kind === 'cob') {
    return { cents: charge.amount_cents, anyAmount: (charge.body as CobBody).valor.modalidadeAlteracao === 1 };
  }
  const due = dueAmountOn(charge.body as CobVBody, brasiliaDate(now));
  return {
    cents: due.finalCents,
    anyAmount: false,
    components: {
      original: due.originalCents,
      juros: due.jurosCents,
      multa: due.multaCents,
      abatimento: due.abatimentoCents,
      desconto: due.descontoCents,
    },
  };
}

/** Why a charge cannot be paid at `now`, or undefined when it can (the code is also a send's named error). */
export function unpayableReason(
  charge: PayableCharge,
  now: Date,
): PaymentRefused<'cobranca_paga' | 'cobranca_removida' | 'chave_removida' | 'cobranca_expirada'> | undefined {
  if (charge.status === 'CONCLUIDA')
    return new PaymentRefused('cobranca_paga', `A cobrança ${charge.txid} já foi paga.`);
  if (charge.status !== 'ATIVA')
    return new PaymentRefused('cobranca_removida', `A cobrança ${charge.txid} não está ativa (${charge.status}).`);
  if (charge.key_removed_at)
    return new PaymentRefused('chave_removida', `A chave ${charge.chave} da cobrança foi removida.`);
  if (charge.kind === 'cob') {
    const expiresAtMs = charge.created_at.getTime() + (charge.body as CobBody).calendario.expiracao * 1000;
    if (now.getTime() >= expiresAtMs)
      return new PaymentRefused(
        'cobranca_expirada',
        `A cobrança ${charge.txid} expirou em ${new Date(expiresAtMs).toISOString()}.`,
      );
  } else if (brasiliaDate(now) > lastPayableDate(charge.body as CobVBody)) {
    return new PaymentRefused(
      'cobranca_expirada',
      `A cobrança ${charge.txid} só podia ser paga até ${lastPayableDate(charge.body as CobVBody)}.`,
    );
  }
  return undefined;
}

/**
 * A Pix for a caller that cannot leave it waiting (automatic Pix, whose attempt must settle now): a key that
 * needs its participant's confirmation refuses it.
 */
export async function receivePix(sql: Sql, now: Date, incoming: IncomingPix): Promise<ReceivedPixRow> {
  const reception = await receive(sql, now, incoming, false);
  if (!reception.received) throw new Error('a Pix was held for a caller that cannot hold it');
  return reception.received;
}

/** A Pix whose sender can wait for the receiving participant's confirmation: credited, or held WAITING. */
export function receiveOrHold(sql: Sql, now: Date, incoming: IncomingPix): Promise<Reception> {
  return receive(sql, now, incoming, true);
}

async function receive(sql: Sql, now: Date, incoming: IncomingPix, holdable: boolean): Promise<Reception> {
  checkAmount(incoming.amountCents);
  const { target } = incoming;
  if (target.kind === 'charge' || target.kind === 'location') {
    // Outside a transaction concurrent reads share one statement, as the writes do.
    const charge =
      target.kind === 'charge' && !sql.inTransaction
        ? await settlementReaderFor(sql).submit(target)
        : await readChargeForSettlement(sql, target);
    const settlement = charge && chargeSettlement(charge, incoming, now);
    if (settlement) {
      const received = await settle(sql, settlement);
      if (received) return { received };
      // The charge changed since it was read (paid, revised, removed, linked to a split): decide again under its lock.
    }
  }
  return sql.atomic((tx) => receiveLocked(tx, now, incoming, holdable));
}

function checkAmount(amountCents: number | undefined): void {
  if (amountCents !== undefined && (!Number.isSafeInteger(amountCents) || amountCents <= 0))
    throw new PaymentRefused('valor_invalido', 'O valor do Pix deve ser positivo.');
}

/** The charge's own rules, on either path: returns the amount paid and its components. */
function chargeAmountPaid(
  charge: PayableCharge,
  incoming: IncomingPix,
  now: Date,
): { amountCents: number; components: Record<string, number> | undefined } {
  const refused = unpayableReason(charge, now);
  if (refused) throw refused;
  const due = amountDue(charge, now);
  const amountCents = incoming.amountCents ?? due.cents;
  checkAmount(amountCents);
  if (!due.anyAmount && amountCents !== due.cents) {
    throw new PaymentRefused(
      'valor_divergente',
      `O valor ${formatAmount(amountCents)} difere do valor devido ${formatAmount(due.cents)}.`,
    );
  }
  return { amountCents, components: due.components };
}

/** The received Pix row a payment writes (every path, and the recurring charges' batched settlement). */
export function receivedRow(
  incoming: IncomingPix,
  now: Date,
  to: { accountId: number; chargeId: number | null; txid: string | null; chave: string | null },
  amountCents: number,
  components: Record<string, number> | undefined,
): Omit<ReceivedPixRow, 'id'> {
  return {
    end_to_end_id: incoming.endToEndId ?? newEndToEndId(now),
    account_id: to.accountId,
    charge_id: to.chargeId,
    txid: to.txid,
    chave: to.chave,
    amount_cents: amountCents,
    received_at: now,
    pagador_cpf: incoming.payer.cpf ?? null,
    pagador_cnpj: incoming.payer.cnpj ?? null,
    pagador_nome: incoming.payer.nome,
    info_pagador: incoming.infoPagador ?? null,
    components: components ?? null,
    origin: incoming.origin,
  };
}

const duplicate = () => new PaymentRefused('pix_duplicado', 'Pix já registrado (endToEndId ou cobrança já paga).');

/**
 * The engine's decision on a charge read without a lock (`readChargeForSettlement`), for the settlement path's
 * one statement — here, and at the SPI boundary for a pacs.008 naming the charge's txid (src/spi/credit.ts): the
 * payment to write, or undefined when only the locked path can make it (a split or a boleto linked, a
 * participant's confirmation, the receiver's first payment: its ledger account does not exist yet). A refusal
 * by the charge's rules or the key's settings is thrown (`PaymentRefused`).
 */
export function chargeSettlement(
  charge: ChargeForSettlement,
  incoming: IncomingPix,
  now: Date,
): Settlement | undefined {
  if (charge.split_linked || charge.boleto_linked || charge.confirm_incoming) return undefined;
  if (!charge.external_ledger_id || !charge.available_ledger_id) return undefined;
  const { amountCents, components } = chargeAmountPaid(charge, incoming, now);
  const settingsRefusal = keyRefusal(charge.key_settings, {
    accountId: charge.account_id,
    chave: charge.chave,
    txid: charge.txid,
    payer: incoming.payer,
    fromStaticQrCode: false,
  });
  if (settingsRefusal) throw new PaymentRefused(settingsRefusal.code, settingsRefusal.message);
  const pix = receivedRow(
    incoming,
    now,
    { accountId: charge.account_id, chargeId: charge.id, txid: charge.txid, chave: charge.chave },
    amountCents,
    components,
  );
  return {
    charge,
    pix,
    ledger: { externalId: charge.external_ledger_id, availableId: charge.available_ledger_id },
    event: pixEventJob(pix, [], now),
  };
}

/** The settlement path's write of a decided payment. Undefined: the charge changed since it was read. */
async function settle(sql: Sql, settlement: Settlement): Promise<ReceivedPixRow | undefined> {
  try {
    // Outside a transaction concurrent payments share one statement (group commit); inside one, the statement
    // waits for that transaction's commit and cannot be shared.
    if (!sql.inTransaction) return await settlementBatcherFor(sql).submit(settlement);
    return (await writeSettlements(sql, [settlement]))[0];
  } catch (error) {
    // The unique indexes are the last line: a duplicate end-to-end id, or a second payment of one charge.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
}

/** Every other payment, and a charge that changed under the settlement path: one step at a time under the charge's lock. */
async function receiveLocked(sql: Sql, now: Date, incoming: IncomingPix, holdable: boolean): Promise<Reception> {
  const target = incoming.target;
  const charge =
    target.kind === 'charge' || target.kind === 'location' ? await lockChargeForPayment(sql, target) : undefined;
  let accountId: number;
  let chave: string | null;
  let txid: string | null = null;
  let components: Record<string, number> | undefined;
  let amountCents = incoming.amountCents;
  let confirmIncoming = false;
  if (charge) {
    ({ amountCents, components } = chargeAmountPaid(charge, incoming, now));
    accountId = charge.account_id;
    chave = charge.chave;
    txid = charge.txid;
    confirmIncoming = charge.confirm_incoming;
  } else if (target.kind === 'key') {
    const { rows } = await sql.query<{ account_id: number; removed_at: Date | null; confirm_incoming: boolean }>(
      'select account_id, removed_at, confirm_incoming from pix_keys where chave = $1',
      [target.chave],
    );
    if (!rows.length || rows[0].removed_at)
      throw new PaymentRefused('chave_inexistente', `A chave ${target.chave} não está registrada nesta instituição.`);
    accountId = rows[0].account_id;
    confirmIncoming = rows[0].confirm_incoming;
    chave = target.chave;
    txid = target.txid ?? null;
  } else if (target.kind === 'account') {
    const { rows } = await sql.query<{ id: number }>('select id from accounts where conta = $1', [target.conta]);
    if (!rows.length)
      throw new PaymentRefused('conta_inexistente', `A conta ${target.conta} não existe nesta instituição.`);
    accountId = rows[0].id;
    chave = null;
  } else {
    throw new PaymentRefused('cobranca_inexistente', 'Nenhuma cobrança corresponde ao Pix.');
  }
  // Only a charge can supply the amount; callers paying a key or an account give one.
  if (amountCents === undefined) throw new PaymentRefused('valor_invalido', 'O valor do Pix deve ser positivo.');
  // The receiver's settings (PUT /v2/gn/config) may refuse what the charge or the key alone would accept.
  const fromStaticQrCode = target.kind === 'key' && target.fromStaticQrCode === true;
  const settingsRefusal = await receivingRefusal(sql, {
    accountId,
    chave,
    txid,
    payer: incoming.payer,
    fromStaticQrCode,
  });
  if (settingsRefusal) throw new PaymentRefused(settingsRefusal.code, settingsRefusal.message);
  if (confirmIncoming && chave) {
    const held = await holdUnlessAccepted(sql, now, { ...incoming, amountCents }, { accountId, chave }, holdable);
    if (held) return { held };
  }

  // A split's parties are locked before the first posting (docs/ledger.md, "Lock order").
  const split = await prepareSplit(sql, { accountId, txid }, charge);
  let received: ReceivedPixRow;
  try {
    received = await insertReceivedPix(
      sql,
      receivedRow(incoming, now, { accountId, chargeId: charge?.id ?? null, txid, chave }, amountCents, components),
    );
  } catch (error) {
    // The unique indexes are the last line: a duplicate end-to-end id, or a second payment of one charge.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
  if (charge) {
    await sql.query(`update charges set status = 'CONCLUIDA', updated_at = $2 where id = $1`, [charge.id, now]);
    // A boleto's QR: its charge is paid in this same transaction (at most once: the QR was ATIVA until now).
    await boletoPaidByPix(sql, charge.id, received, now);
  }
  await transfer(sql, {
    kind: 'pix_recebido',
    reference: received.end_to_end_id,
    accountId,
    at: now,
    from: ledgerCode.externalPix,
    to: ledgerCode.available(accountId),
    amountCents: received.amount_cents,
  });
  // Payment split: passes the beneficiaries' shares on in this same transaction (may refuse the Pix).
  await distributeSplit(sql, received, split, now);
  await enqueuePixEvent(sql, received, [], now);
  return { received };
}

/**
 * A Pix to a participant's key: held until the participant decides (holds.ts). Undefined: the participant
 * accepted it (ACSP), credit it now; a rejection or timeout refuses it, and its sender takes it back.
 */
async function holdUnlessAccepted(
  sql: Sql,
  now: Date,
  incoming: IncomingPix & { amountCents: number },
  to: { accountId: number; chave: string },
  holdable: boolean,
): Promise<HeldPix | undefined> {
  const decided = incoming.endToEndId ? await findConfirmation(sql, incoming.endToEndId) : undefined;
  if (decided?.status === 'ACSP') return undefined;
  // Past its deadline and its timeout not run yet: expired all the same (the clock decides, not the job's turn).
  if (decided?.status === 'WAITING' && now >= decided.deadline_at)
    Object.assign(decided, { status: 'EXPIRED', error: CONFIRMATION_TIMEOUT_ERROR });
  if (decided && decided.status !== 'WAITING')
    throw new PaymentRefused(
      'pix_rejeitado_participante',
      `O participante recebedor ${decided.status === 'EXPIRED' ? 'não confirmou o Pix a tempo' : 'rejeitou o Pix'}` +
        (decided.error ? `: ${decided.error.reason}` : '.'),
    );
  if (!holdable)
    throw new PaymentRefused(
      'confirmacao_indisponivel',
      `A chave ${to.chave} exige a confirmação do participante, que este pagamento não pode aguardar.`,
    );
  return holdPix(sql, now, { ...incoming, endToEndId: incoming.endToEndId ?? newEndToEndId(now) }, to);
}
