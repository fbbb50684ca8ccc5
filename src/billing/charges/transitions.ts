/**
 * The one place a card charge changes status (docs/billing.md, "States"). Every change is checked against
 * the table below, written to the history with its message as the next status event, and notified when the
 * charge has a notification_url. Callers hold the charge row lock.
 */
import type { Sql } from '../../platform/db/database.ts';
import { billingError } from '../shared/errors.ts';
import { enqueueNotification } from '../notifications/delivery.ts';
import { parcelChanged } from '../carnets/events.ts';
import { insertHistory, updateCharge, type ChargeRow, type ChargeStatus } from './store.ts';

type Table = Partial<Record<ChargeStatus | 'none', readonly ChargeStatus[]>>;

/** Card charges. */
export const TRANSITIONS: Table = {
  none: ['new'],
  new: ['waiting', 'link', 'canceled'],
  link: ['waiting', 'canceled'],
  waiting: ['approved', 'unpaid', 'canceled'],
  approved: ['paid'],
  unpaid: ['waiting', 'canceled'],
  paid: ['partially_refunded', 'refunded'],
  partially_refunded: ['refunded'],
  refunded: [],
  canceled: [],
};

/** Boletos (and carnê parcels): paid by barcode or Pix, unpaid past the due date, settled by hand, canceled. */
export const BOLETO_TRANSITIONS: Table = {
  waiting: ['paid', 'unpaid', 'settled', 'canceled'],
  unpaid: ['paid', 'waiting', 'settled', 'canceled'],
  paid: [],
  settled: [],
  canceled: [],
};

/** Carnês: created active; afterwards their status follows their parcels (carnets/events.ts). */
const CARNET_TRANSITIONS: Table = { none: ['active'] };

function tableOf(charge: ChargeRow): Table {
  if (charge.kind === 'carnet') return CARNET_TRANSITIONS;
  return charge.payment?.method === 'banking_billet' ? BOLETO_TRANSITIONS : TRANSITIONS;
}

export const MESSAGES: Partial<Record<ChargeStatus, string>> = {
  new: 'Cobrança criada.',
  link: 'Link de pagamento criado.',
  waiting: 'Pagamento via cartão de crédito aguardando a resposta da operadora.',
  approved: 'Pagamento via cartão de crédito aprovado pela operadora; aguardando confirmação.',
  paid: 'Pagamento confirmado.',
  unpaid: 'Pagamento via cartão de crédito recusado pela operadora.',
  partially_refunded: 'Estorno parcial realizado.',
  refunded: 'Estorno realizado.',
  canceled: 'Cobrança cancelada.',
  settled: 'Cobrança marcada como paga (baixa manual).',
  active: 'Carnê criado.',
};

/** Boletos say what happened in their own words. */
const BOLETO_MESSAGES: Partial<Record<ChargeStatus, string>> = {
  waiting: 'Boleto emitido; aguardando o pagamento.',
  unpaid: 'Boleto vencido sem pagamento.',
};

function messageOf(to: ChargeStatus, boleto: boolean): string {
  return (boleto ? BOLETO_MESSAGES[to] : undefined) ?? MESSAGES[to]!;
}

export interface TransitionExtra {
  message?: string;
  valueCents?: number;
  receivedByBankAt?: Date;
  changes?: Parameters<typeof updateCharge>[2];
}

/** Moves `charge` to `to` (or records its creation when `from` is 'none'). Mutates the row in memory too. */
export async function transition(
  sql: Sql,
  charge: ChargeRow,
  from: ChargeStatus | 'none',
  to: ChargeStatus,
  now: Date,
  extra: TransitionExtra = {},
): Promise<void> {
  if (!tableOf(charge)[from]?.includes(to))
    throw billingError(400, 'invalid_status_transition', `A cobrança não pode passar de ${from} para ${to}.`);
  if (from !== 'none') await updateCharge(sql, charge.id, { status: to, ...extra.changes }, now);
  Object.assign(charge, { status: to, ...extra.changes });
  const base = messageOf(to, charge.payment?.method === 'banking_billet');
  const message = extra.message ? `${base} ${extra.message}` : base;
  await insertHistory(
    sql,
    charge.id,
    {
      message,
      status: to,
      previous: from === 'none' ? null : from,
      valueCents: extra.valueCents,
      receivedByBankAt: extra.receivedByBankAt,
    },
    now,
  );
  await enqueueNotification(sql, charge, now);
  // A carnê's parcel: the carnê's token reports it too (carnet_charge), and the carnê's own status follows.
  if (charge.carnet_id !== null && from !== 'none')
    await parcelChanged(
      sql,
      charge,
      from,
      { message, valueCents: extra.valueCents, receivedByBankAt: extra.receivedByBankAt },
      now,
    );
}

/** Refuses with a clear error unless the charge is in one of `allowed`. */
export function requireStatus(charge: ChargeRow, allowed: readonly ChargeStatus[], action: string): void {
  if (!allowed.includes(charge.status)) {
    throw billingError(
      400,
      'invalid_charge_status',
      `${action} exige a cobrança em ${allowed.join(' ou ')}; ela está em ${charge.status}.`,
    );
  }
}
