/**
 * Boletos issued by this pixd, paid "on us": found by barcode and paid through the boletos module
 * (src/billing/boletos: `findByBarcode`, `payBoleto`), which withdraws the boleto's Pix QR, registers the
 * payment and credits its owner from `external:boleto` on the next business day, notifying it. Bill payment
 * only moves the payer's money into `external:boleto` in the same transaction (settlement.ts).
 */
import type { Sql } from '../../platform/db/database.ts';
import { BillRefused } from './external.ts';

/** What paying a pixd boleto on a date asks (the boletos module's `BoletoForPayment`). */
export interface OnUsBoleto {
  chargeId: number;
  accountId: number;
  dueDate: string;
  /** Due on the date asked: fine, interest and discounts applied. */
  amountCents: number;
  components: { original: number; multa: number; juros: number; desconto: number };
  beneficiary: { nome: string; documento: string };
  payer: { nome: string; documento: string };
  payable: boolean;
}

/** The pixd boleto with this 44-digit barcode and what paying it on `date` (YYYY-MM-DD) asks; undefined if none. */
export async function findOnUsBoleto(_sql: Sql, _barcode: string, _date: string): Promise<OnUsBoleto | undefined> {
  return undefined;
}

/**
 * Pays it in the caller's transaction. A refusal (paid meanwhile, amount changed, written off) throws
 * BillRefused, whose message says why to the payer; the caller's transaction then rolls back.
 */
export async function payOnUsBoleto(
  _sql: Sql,
  _payment: {
    chargeId: number;
    amountCents: number;
    paidAt: Date;
    payer: { nome: string; cpf?: string; cnpj?: string };
  },
  _now: Date,
): Promise<void> {
  throw new BillRefused('Boleto não encontrado.');
}
