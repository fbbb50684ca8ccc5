/**
 * `POST /sandbox/boleto/pay` (and `pixd pay <linha digitável>`, the console's payer tool): the fictitious payer,
 * outside pixd, pays a pixd boleto by its barcode or linha digitável, the amount it asks on the boleto owner's
 * today. The boleto's charge is credited and paid on the next business day of that clock, as banks compensate
 * boletos (billing/boletos/service.ts `payBoleto`); a Pix on its QR is paid at once instead.
 */
import type { Sql } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import { invalid } from '../platform/errors.ts';
import { brasiliaDate } from '../platform/calendar.ts';
import { BarcodeError, parseBill } from '../platform/febraban.ts';
import { formatAmount } from '../platform/money.ts';
import { BoletoPaymentRefused, findByBarcode, payBoleto } from '../billing/boletos/service.ts';
import { FICTITIOUS_PAYER } from './spi-institution.ts';

const refused = (reason: string, detail: string) =>
  invalid('BoletoRecusado', detail, [{ property: 'codBarras', reason }]);

export async function sandboxPayBoleto(
  sql: Sql,
  clock: Clock,
  body: { codBarras: string; pagador?: { nome: string; cpf?: string; cnpj?: string } },
) {
  let barcode: string;
  try {
    const bill = parseBill(body.codBarras, brasiliaDate(clock.forAccount(undefined).now()));
    if (bill.kind !== 'bank')
      throw refused('arrecadacao', 'O pagador fictício paga boletos bancários, não contas de arrecadação.');
    barcode = bill.barcode;
  } catch (error) {
    if (error instanceof BarcodeError) throw refused(error.defect, `Código inválido: ${error.message}.`);
    throw error;
  }
  const owner = await findByBarcode(sql, barcode, brasiliaDate(clock.forAccount(undefined).now()));
  if (!owner) throw refused('boleto_inexistente', 'O código não é de um boleto emitido por este pixd.');
  const now = clock.forAccount(owner.accountId).now();
  const boleto = (await findByBarcode(sql, barcode, brasiliaDate(now)))!;
  try {
    const { creditAt } = await payBoleto(
      sql,
      { now },
      {
        chargeId: boleto.chargeId,
        amountCents: boleto.amountCents,
        paidAt: now,
        payer: body.pagador ?? FICTITIOUS_PAYER,
      },
    );
    return {
      codigoBarras: boleto.barcode,
      linhaDigitavel: boleto.linhaDigitavel,
      valor: formatAmount(boleto.amountCents),
      beneficiario: boleto.beneficiary,
      chargeId: boleto.chargeId,
      pagoEm: now.toISOString(),
      creditoEm: creditAt.toISOString(),
    };
  } catch (error) {
    if (error instanceof BoletoPaymentRefused) throw refused(error.code, error.message);
    throw error;
  }
}
