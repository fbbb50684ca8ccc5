/**
 * A boleto's Pix QR paid (called by the Pix engine inside the payment's transaction, the Pix charge locked): the
 * boleto's charge becomes `paid` at once, credited already by the Pix itself (`pix_recebido`). Its own module,
 * importing no Pix code, so the engine can call it without an import cycle.
 */
import type { Sql } from '../../platform/db/database.ts';
import { lockCharge } from '../charges/store.ts';
import { transition } from '../charges/transitions.ts';
import { boletoChargeOfPix } from './store.ts';

export async function boletoPaidByPix(
  sql: Sql,
  pixChargeId: number,
  pix: { amount_cents: number; received_at: Date },
  now: Date,
): Promise<void> {
  const chargeId = await boletoChargeOfPix(sql, pixChargeId);
  if (chargeId === undefined) return;
  const charge = await lockCharge(sql, { id: chargeId });
  // Only an ATIVA Pix charge is paid, and every other end of the boleto withdraws it first: waiting or unpaid here.
  if (!charge || !['waiting', 'unpaid'].includes(charge.status)) return;
  await transition(sql, charge, charge.status, 'paid', now, {
    message: 'Pago via Pix.',
    valueCents: pix.amount_cents,
    receivedByBankAt: pix.received_at,
    changes: { paid_at: pix.received_at, paid_cents: pix.amount_cents },
  });
}
