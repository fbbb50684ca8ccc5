/**
 * The one payment engine. Every incoming Pix — sandbox auto-settlement, the sandbox pay endpoint and
 * the participant-side confirmations — goes through `receivePix`, inside the caller's transaction:
 * find and lock what is paid, check it is payable, record the received Pix, conclude the charge,
 * post the ledger entry and enqueue the webhook event. A charge row lock plus a unique index make
 * "paid at most once" hold under any concurrency.
 */
import type { Sql } from '../../platform/db/database.ts';
import { transfer, ledgerCode } from '../../platform/ledger/ledger.ts';
import { newEndToEndId } from '../../platform/institution.ts';
import { formatAmount } from '../../platform/money.ts';
import { brasiliaDate, dueAmountOn, lastPayableDate } from '../cobv/amount.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import type { CobBody } from '../cob/schemas.ts';
import { insertReceivedPix, type PixOrigin, type ReceivedPixRow } from '../received/store.ts';
import { enqueuePixEvent } from '../received/events.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import { distributeSplit } from '../split/distribute.ts';
import { receivingRefusal } from '../settings/receiving.ts';
import { PaymentRefused } from './refusal.ts';

export type PaymentTarget =
  /** A charge by its receiver and txid (sandbox pay by txid). */
  | { kind: 'charge'; accountId: number; txid: string }
  /** A dynamic QR code: the location token inside its URL. */
  | { kind: 'location'; token: string }
  /** A key, from a static QR code (optionally tied to a txid) or a plain transfer. */
  | { kind: 'key'; chave: string; txid?: string; fromStaticQrCode?: boolean }
  /** Bank data (agência/conta) instead of a key: the account number; accepted only with receberSemChave. */
  | { kind: 'account'; conta: string };

export interface IncomingPix {
  target: PaymentTarget;
  amountCents: number;
  payer: { nome: string; cpf?: string; cnpj?: string };
  infoPagador?: string;
  origin: PixOrigin;
  /** Given by the payer's institution (participant confirmations); generated otherwise. */
  endToEndId?: string;
}

interface PayableCharge {
  id: number;
  account_id: number;
  txid: string;
  kind: 'cob' | 'cobv';
  status: string;
  created_at: Date;
  amount_cents: number;
  chave: string;
  body: CobBody | CobVBody;
  key_removed_at: Date | null;
}

const CHARGE_FOR_PAYMENT = `select c.id, c.account_id, c.txid, c.kind, c.status, c.created_at, c.amount_cents, c.chave, c.body,
  k.removed_at as key_removed_at from charges c left join pix_keys k on k.chave = c.chave`;

async function lockCharge(sql: Sql, target: PaymentTarget): Promise<PayableCharge | undefined> {
  if (target.kind === 'charge') {
    const { rows } = await sql.query<PayableCharge>(
      `${CHARGE_FOR_PAYMENT} where c.account_id = $1 and c.txid = $2 for update of c`,
      [target.accountId, target.txid],
    );
    return rows[0];
  }
  if (target.kind === 'location') {
    const { rows } = await sql.query<PayableCharge>(
      `${CHARGE_FOR_PAYMENT} join locations l on l.id = c.location_id where l.token = $1 for update of c`,
      [target.token],
    );
    return rows[0];
  }
  return undefined;
}

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

/** Why a charge cannot be paid at `now`, or undefined when it can. */
export function unpayableReason(charge: PayableCharge, now: Date): PaymentRefused | undefined {
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

export async function receivePix(sql: Sql, now: Date, incoming: IncomingPix): Promise<ReceivedPixRow> {
  if (!Number.isSafeInteger(incoming.amountCents) || incoming.amountCents <= 0)
    throw new PaymentRefused('valor_invalido', 'O valor do Pix deve ser positivo.');
  const charge = await lockCharge(sql, incoming.target);
  let accountId: number;
  let chave: string | null;
  let txid: string | null = null;
  let components: Record<string, number> | undefined;
  if (charge) {
    const refused = unpayableReason(charge, now);
    if (refused) throw refused;
    const due = amountDue(charge, now);
    if (!due.anyAmount && incoming.amountCents !== due.cents) {
      throw new PaymentRefused(
        'valor_divergente',
        `O valor ${formatAmount(incoming.amountCents)} difere do valor devido ${formatAmount(due.cents)}.`,
      );
    }
    components = due.components;
    accountId = charge.account_id;
    chave = charge.chave;
    txid = charge.txid;
  } else if (incoming.target.kind === 'key') {
    const { rows } = await sql.query<{ account_id: number; removed_at: Date | null }>(
      'select account_id, removed_at from pix_keys where chave = $1',
      [incoming.target.chave],
    );
    if (!rows.length || rows[0].removed_at)
      throw new PaymentRefused(
        'chave_inexistente',
        `A chave ${incoming.target.chave} não está registrada nesta instituição.`,
      );
    accountId = rows[0].account_id;
    chave = incoming.target.chave;
    txid = incoming.target.txid ?? null;
  } else if (incoming.target.kind === 'account') {
    const { rows } = await sql.query<{ id: number }>('select id from accounts where conta = $1', [
      incoming.target.conta,
    ]);
    if (!rows.length)
      throw new PaymentRefused('conta_inexistente', `A conta ${incoming.target.conta} não existe nesta instituição.`);
    accountId = rows[0].id;
    chave = null;
  } else {
    throw new PaymentRefused('cobranca_inexistente', 'Nenhuma cobrança corresponde ao Pix.');
  }
  // The receiver's settings (PUT /v2/gn/config) may refuse what the charge or the key alone would accept.
  const fromStaticQrCode = incoming.target.kind === 'key' && incoming.target.fromStaticQrCode === true;
  const settingsRefusal = await receivingRefusal(sql, {
    accountId,
    chave,
    txid,
    payer: incoming.payer,
    fromStaticQrCode,
  });
  if (settingsRefusal) throw new PaymentRefused(settingsRefusal.code, settingsRefusal.message);

  let received: ReceivedPixRow;
  try {
    received = await insertReceivedPix(sql, {
      end_to_end_id: incoming.endToEndId ?? newEndToEndId(now),
      account_id: accountId,
      charge_id: charge?.id ?? null,
      txid,
      chave,
      amount_cents: incoming.amountCents,
      received_at: now,
      pagador_cpf: incoming.payer.cpf ?? null,
      pagador_cnpj: incoming.payer.cnpj ?? null,
      pagador_nome: incoming.payer.nome,
      info_pagador: incoming.infoPagador ?? null,
      components: components ?? null,
      origin: incoming.origin,
    });
  } catch (error) {
    // The unique indexes are the last line: a duplicate end-to-end id, or a second payment of one charge.
    if (isUniqueViolation(error))
      throw new PaymentRefused('pix_duplicado', 'Pix já registrado (endToEndId ou cobrança já paga).');
    throw error;
  }
  if (charge)
    await sql.query(`update charges set status = 'CONCLUIDA', updated_at = $2 where id = $1`, [charge.id, now]);
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
  await distributeSplit(sql, received, charge, now);
  await enqueuePixEvent(sql, received, [], now);
  return received;
}
