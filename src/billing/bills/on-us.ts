/**
 * Boletos issued by this pixd, paid "on us": found by barcode and paid through the boletos module
 * (src/billing/boletos: `findByBarcode`, `payBoleto`), which withdraws the boleto's Pix QR, registers the
 * payment and credits its owner from `external:boleto` on the next business day, notifying it. Bill payment
 * only moves the payer's money into `external:boleto` in the same transaction (settlement.ts).
 */
import type { Sql } from '../../platform/db/database.ts';
import { BoletoPaymentRefused, findByBarcode, payBoleto, type BoletoForPayment } from '../boletos/service.ts';
import { BillRefused } from './external.ts';

/** What paying a pixd boleto on a date asks: the amount due then (fine, interest, discounts), whether it can be. */
export type OnUsBoleto = BoletoForPayment;

/** The pixd boleto with this 44-digit barcode and what paying it on `date` (YYYY-MM-DD) asks; undefined if none. */
export const findOnUsBoleto = (sql: Sql, barcode: string, date: string): Promise<OnUsBoleto | undefined> =>
  findByBarcode(sql, barcode, date);

/**
 * Pays it in the caller's transaction. A refusal (paid meanwhile by Pix, amount changed, written off) throws
 * BillRefused, whose message says why to the payer; the caller's transaction then rolls back.
 */
export async function payOnUsBoleto(
  sql: Sql,
  payment: {
    chargeId: number;
    amountCents: number;
    paidAt: Date;
    payer: { nome: string; cpf?: string; cnpj?: string };
  },
  now: Date,
): Promise<void> {
  try {
    await payBoleto(sql, { now }, payment);
  } catch (error) {
    if (error instanceof BoletoPaymentRefused) throw new BillRefused(error.message);
    throw error;
  }
}
