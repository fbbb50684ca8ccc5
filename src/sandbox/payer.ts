/**
 * The sandbox's payer institution (`AppContext.payerInstitution`): the fictitious payer of recurring charges and
 * Open Finance payments pays from 0.01 to 10.00 and refuses above (docs/automatic-pix.md,
 * docs/automatic-payments.md). The only place these amount rules live. A recurring charge's attempt it pays is
 * paid as a payer's institution outside pays one: by its pacs.008 at the SPI boundary (recurring-payer.ts).
 */
import type { PayerInstitution, SimulatedOrigin } from '../platform/extensions.ts';
import { payerPaysInitiated } from './spi-institution.ts';
import { sendRecurringPayment } from './recurring-payer.ts';

/** The label of the Pix paid through the sandbox's pay endpoint. */
export const SANDBOX_PAY_ORIGIN = 'sandbox_pay' as SimulatedOrigin;

/** What the simulated payer pays: up to 10.00. */
export const SANDBOX_PAYER_PAYS_MAX_CENTS = 1000;

export const simulatedPayer: PayerInstitution = {
  async recurringAttemptDue(sql, attempt, now) {
    if (attempt.amountCents > SANDBOX_PAYER_PAYS_MAX_CENTS)
      return {
        refused: { codigo: 'AM02', descricao: 'Saldo insuficiente do pagador (sandbox: valor acima de 10.00).' },
      };
    await sendRecurringPayment(sql, attempt, now);
    return { awaits: true };
  },
  // Paid: the payer's institution sends the payment's Pix into the node's inbound path (spi-institution.ts).
  openFinancePaymentDue: async (node, payment, now) =>
    payment.amountCents <= SANDBOX_PAYER_PAYS_MAX_CENTS
      ? payerPaysInitiated(node, payment, now)
      : { refused: 'Saldo insuficiente na conta do pagador (sandbox: valores acima de 10.00 são recusados).' },
  // The fictitious payer pays in-process and reads the Pix's status like any caller (POST /sandbox/pix/pay).
  heldPixDecided: async () => {},
};
