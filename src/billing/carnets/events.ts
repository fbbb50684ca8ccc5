/**
 * What a carnê hears of its parcels (docs/billing.md, "Carnês"): every status change of a parcel is also an event
 * of the carnê's token (type carnet_charge, the parcel named), and the carnê's own status follows its parcels:
 * finished once every parcel is paid, settled or canceled (at least one not canceled), canceled when all are,
 * unpaid while a parcel is unpaid, active otherwise. Called by transitions.ts with the parcel locked; the carnê
 * is locked after its parcels, always (the order every carnê path takes).
 */
import type { Sql } from '../../platform/db/database.ts';
import { billingError } from '../shared/errors.ts';
import { enqueueNotification } from '../notifications/delivery.ts';
import {
  insertHistory,
  lockCharge,
  parcelsOf,
  updateCharge,
  type ChargeRow,
  type ChargeStatus,
} from '../charges/store.ts';

const CLOSED: readonly ChargeStatus[] = ['paid', 'settled', 'canceled'];

/** The carnê's status its parcels imply. */
export function carnetStatusOf(parcels: Pick<ChargeRow, 'status'>[]): ChargeStatus {
  if (parcels.every((p) => p.status === 'canceled')) return 'canceled';
  if (parcels.every((p) => CLOSED.includes(p.status))) return 'finished';
  return parcels.some((p) => p.status === 'unpaid') ? 'unpaid' : 'active';
}

const CARNET_MESSAGES: Partial<Record<ChargeStatus, string>> = {
  active: 'Carnê em dia.',
  unpaid: 'Carnê com parcela vencida sem pagamento.',
  finished: 'Carnê finalizado.',
  canceled: 'Carnê cancelado.',
};

/** A status event of the carnê itself (its id the next of its token), notified. */
export async function carnetEvent(
  sql: Sql,
  carnet: ChargeRow,
  entry: {
    status: ChargeStatus;
    previous: ChargeStatus | null;
    message: string;
    subjectChargeId?: number;
    valueCents?: number;
    receivedByBankAt?: Date;
  },
  now: Date,
): Promise<void> {
  await insertHistory(sql, carnet.id, entry, now);
  await enqueueNotification(sql, carnet, now);
}

export async function parcelChanged(
  sql: Sql,
  parcel: ChargeRow,
  from: ChargeStatus,
  entry: { message: string; valueCents?: number; receivedByBankAt?: Date },
  now: Date,
): Promise<void> {
  const carnet = await lockCharge(sql, { id: parcel.carnet_id!, kind: 'carnet' });
  if (!carnet) throw new Error(`carnet ${parcel.carnet_id} of parcel ${parcel.id} is gone`);
  await carnetEvent(
    sql,
    carnet,
    {
      status: parcel.status,
      previous: from,
      message: `Parcela ${parcel.parcel}: ${entry.message}`,
      subjectChargeId: parcel.id,
      valueCents: entry.valueCents,
      receivedByBankAt: entry.receivedByBankAt,
    },
    now,
  );
  const next = carnetStatusOf(await parcelsOf(sql, carnet.id));
  if (next === carnet.status) return;
  if (carnet.status === 'finished' || carnet.status === 'canceled')
    throw billingError(400, 'invalid_status_transition', `O carnê ${carnet.id} já está ${carnet.status}.`);
  const previous = carnet.status;
  await updateCharge(sql, carnet.id, { status: next }, now);
  carnet.status = next;
  await carnetEvent(sql, carnet, { status: next, previous, message: CARNET_MESSAGES[next]! }, now);
}
