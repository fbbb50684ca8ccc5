/** The e-mail of a boleto (sendBilletEmail, and each parcel of sendCarnetEmail): what to pay, how, and the PDF's link. */
import type { Sql } from '../../platform/db/database.ts';
import { brazilianDate } from '../../platform/calendar.ts';
import { formatAmount } from '../../platform/money.ts';
import { findAccount } from '../../accounts/store.ts';
import type { BillingCaller } from '../shared/caller.ts';
import { sendBillingMail, type Mailer } from '../mail/service.ts';
import { formattedLine } from './barcode.ts';
import type { BoletoRow } from './store.ts';
import { boletoLink } from './view.ts';

/** One e-mail for one or more boletos (a carnê's parcels): each one's due date, amount, linha digitável and PDF. */
export async function mailBoletos(
  sql: Sql,
  caller: BillingCaller,
  mailer: Mailer,
  to: string,
  boletos: BoletoRow[],
  reference: string,
): Promise<void> {
  const owner = await findAccount(sql, caller.accountId);
  const lines = boletos.map((b) =>
    [
      `Vencimento: ${brazilianDate(b.due_date)} - Valor: R$ ${formatAmount(Number(b.amount_cents)).replace('.', ',')}`,
      `Linha digitável: ${formattedLine(b.barcode)}`,
      ...(b.pix_qrcode ? [`Pix copia e cola: ${b.pix_qrcode}`] : []),
      `Boleto (PDF): ${boletoLink(caller, b)}.pdf`,
    ].join('\n'),
  );
  await sendBillingMail(
    sql,
    mailer,
    {
      accountId: caller.accountId,
      to,
      subject:
        boletos.length === 1
          ? `Boleto de ${owner!.nome} - vencimento ${brazilianDate(boletos[0]!.due_date)}`
          : `Carnê de ${owner!.nome} - ${boletos.length} parcelas`,
      body: `${owner!.nome} enviou ${boletos.length === 1 ? 'um boleto' : 'um carnê'} para você.\n\n${lines.join('\n\n')}\n`,
      reference,
    },
    caller.now,
  );
}
