/**
 * What every Open Finance settlement shares (automatic payments, Pix payments): the payer's institution
 * (`AppContext.payerInstitution`) decides, and a paid payment arrives through the one payment engine
 * (`receivePix`: the ledger entry, GET /v2/pix, the reconciliation report and refunds agree); a refusal, the
 * institution's or the receiving account's (its settings), becomes the payment's `motivo`.
 */
import type { Database, Sql } from '../platform/db/database.ts';
import type { PayerInstitution } from '../platform/extensions.ts';
import { receivePix } from '../pix/payments/engine.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';

/** A refusal with the reason the payment is given. */
export class PayerRefused extends Error {}

export interface IncomingOfPayment {
  /** The receiving account at pixd. */
  conta: string;
  amountCents: number;
  payer: { nome?: string; cpf?: string; cnpj?: string };
  infoPagador: string | null;
  endToEndId: string;
}

/** In the caller's transaction: the institution pays and the money is credited, or PayerRefused/PaymentRefused. */
export async function receiveFromPayer(
  sql: Sql,
  now: Date,
  payerInstitution: PayerInstitution,
  payment: IncomingOfPayment,
): Promise<void> {
  const decision = payerInstitution.openFinancePaymentDue({ amountCents: payment.amountCents });
  if ('refused' in decision) throw new PayerRefused(decision.refused);
  const { payer } = payment;
  await receivePix(sql, now, {
    target: { kind: 'account', conta: payment.conta },
    amountCents: payment.amountCents,
    payer: {
      nome: payer.nome ?? 'Pagador',
      // A company's payment names the company; the person who authorised it is its representative.
      ...(payer.cnpj ? { cnpj: payer.cnpj } : payer.cpf ? { cpf: payer.cpf } : {}),
    },
    ...(payment.infoPagador !== null && { infoPagador: payment.infoPagador }),
    origin: 'open_finance',
    endToEndId: payment.endToEndId,
  });
}

/**
 * Runs `attempt` in a transaction; a refusal rolls it back and `refuse(motivo)` runs in a transaction of its
 * own (so nothing of the attempt, a credit least of all, survives a refusal).
 */
export async function settleOrRefuse(
  db: Database,
  attempt: (sql: Sql) => Promise<void>,
  refuse: (sql: Sql, motivo: string) => Promise<void>,
): Promise<void> {
  try {
    await db.tx(attempt);
  } catch (error) {
    if (!(error instanceof PayerRefused || error instanceof PaymentRefused)) throw error;
    await db.tx((sql) => refuse(sql, error.message.slice(0, 400)));
  }
}
