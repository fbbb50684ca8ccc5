/**
 * The payer's institution on a production node (`AppContext.payerInstitution`): nothing is simulated. A recurring
 * charge's attempt is paid when its payer's institution sends the pacs.008 (the SPI boundary, src/spi/inbound.ts,
 * with the recurrence's idRec); an Open Finance payment would need an Open Finance connector, which pixd does not
 * have, so it fails with that reason by name instead of a simulated success. A Pix it delivered that waits for a
 * participant's confirmation is answered when decided (src/spi/held.ts).
 */
import type { PayerInstitution } from '../platform/extensions.ts';
import { answerHeldPix } from './held.ts';

/** The named reason an Open Finance payment fails with on a node without an Open Finance connector. */
export const NO_OPEN_FINANCE_CONNECTOR =
  'conector_open_finance_ausente: esta instituição não tem conector Open Finance para iniciar o pagamento.';

export const productionPayer: PayerInstitution = {
  recurringAttemptDue: async () => ({ awaits: true }),
  openFinancePaymentDue: async () => ({ refused: NO_OPEN_FINANCE_CONNECTOR }),
  heldPixDecided: answerHeldPix,
};
