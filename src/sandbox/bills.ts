/**
 * The sandbox's institution of bills not issued by this pixd (`AppContext.billInstitution`): every well-formed
 * barcode is a registered bill of a simulated beneficiary, and the amount decides the outcome, as the Pix send
 * simulation does (docs/bill-payments.md, "Sandbox"):
 *
 *   up to R$ 500.00            paid: LIQUIDADO on the payment date, with a protocol
 *   R$ 500.01 to R$ 1,000.00   taken, then not made on the payment date: NAO_REALIZADO, the amount returned
 *   above R$ 1,000.00          refused at the request (pagamento_recusado)
 *
 * A boleto issued by a pixd account of this node never comes here: it is paid on us.
 */
import type { BillInstitution } from '../platform/extensions.ts';
import { randomHex } from '../platform/ids.ts';
import { formatAmount } from '../platform/money.ts';

export const SANDBOX_BILL_SETTLED_MAX_CENTS = 50_000;
export const SANDBOX_BILL_ACCEPTED_MAX_CENTS = 100_000;

export const simulatedBillInstitution: BillInstitution = {
  describe: () => ({
    beneficiario: {
      nome: 'Beneficiário Simulado Ltda',
      fantasia: 'Beneficiário Simulado',
      documento: '11222333000181',
    },
    pagador: { nome: 'Pagador Simulado', documento: '12345678909' },
  }),
  accept({ paidCents }) {
    if (paidCents <= SANDBOX_BILL_ACCEPTED_MAX_CENTS) return { accepted: true };
    return {
      refused: `Sandbox: contas acima de ${formatAmount(SANDBOX_BILL_ACCEPTED_MAX_CENTS)} são recusadas já na solicitação.`,
    };
  },
  async settle(_sql, { paidCents }) {
    if (paidCents <= SANDBOX_BILL_SETTLED_MAX_CENTS) return { protocolo: randomHex(16).toUpperCase() };
    return {
      refused: `Pagamento recusado pela instituição da conta (sandbox: valores de ${formatAmount(SANDBOX_BILL_SETTLED_MAX_CENTS + 1)} a ${formatAmount(SANDBOX_BILL_ACCEPTED_MAX_CENTS)} não são realizados).`,
    };
  },
};
