/** A pixd boleto's barcode (FEBRABAN, platform/febraban.ts) and its linha digitável as printed. */
import { bankBarcode, bankBarcodeToLine } from '../../platform/febraban.ts';

/**
 * The bank code in pixd's barcodes: fictitious (no bank has COMPE 999), as the ISPBs in platform/institution.ts
 * are, so a sandbox boleto is never mistaken for a real one. The free field is the account id (8 digits) and the
 * charge id (17 digits, the nosso número): unique per boleto, and readable without a lookup.
 */
export const BOLETO_BANK_CODE = '999';

export function barcodeOf(accountId: number, chargeId: number, dueDate: string, amountCents: number): string {
  return bankBarcode({
    bankCode: BOLETO_BANK_CODE,
    dueDate,
    amountCents,
    freeField: String(accountId).padStart(8, '0') + String(chargeId).padStart(17, '0'),
  });
}

/** The linha digitável as a boleto prints it (and Efí answers `barcode`): AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEE… */
export function formattedLine(barcode: string): string {
  const l = bankBarcodeToLine(barcode);
  return `${l.slice(0, 5)}.${l.slice(5, 10)} ${l.slice(10, 15)}.${l.slice(15, 21)} ${l.slice(21, 26)}.${l.slice(26, 32)} ${l[32]} ${l.slice(33)}`;
}
