/**
 * The seam to the institutions of bills this pixd did not issue (`AppContext.billInstitution`). A production
 * node has no bill-payment connector (the CIP's boleto registry and the compensation, the utilities'
 * collection agreements): it decodes the barcode but knows no beneficiary, and refuses every payment by name.
 * The sandbox replaces it with a simulated institution (src/sandbox/bills.ts). docs/bill-payments.md.
 */
import type { BillInstitution } from '../../platform/extensions.ts';

export type { BillInstitution, ExternalBill, ExternalBillPayment } from '../../platform/extensions.ts';

export const NO_BILL_CONNECTOR =
  'Sem conector de pagamento de contas: esta instituição ainda não paga contas de outras instituições ' +
  '(só boletos emitidos por ela mesma).';

/** Production until a bill-payment connector exists. */
export const noBillConnector: BillInstitution = {
  describe: () => null,
  accept: () => ({ refused: NO_BILL_CONNECTOR }),
  async settle() {
    return { refused: NO_BILL_CONNECTOR };
  },
};

/** A pixd boleto no longer payable on its payment date (the institution's own failures are outcomes, not throws). */
export class BillRefused extends Error {}
