/**
 * What every Open Finance settlement shares (automatic payments, Pix payments): the payer's institution
 * (`AppContext.payerInstitution`) pays or refuses. Paid, its Pix arrived at this node's SPI boundary and was
 * credited by the one payment engine (the sandbox's payer institution sends a pacs.008 into the inbound path:
 * the ledger entry, GET /v2/pix, the reconciliation report and refunds agree); a refusal, the institution's or
 * the receiving account's (its settings, in the engine's words), becomes the payment's `motivo`.
 *
 * Three steps, because the Pix is credited in the inbound path's own transactions, which must not wait on this
 * payment's locks (docs/decisions.md):
 *   1. under the payment's lock, a payment still due is marked asked (`payer_asked_at`): from then on only the
 *      payer's answer moves it, so no cancellation or replacement passes a Pix already on its way;
 *   2. outside any transaction, the payer's institution is asked;
 *   3. under the lock again, a payment still waiting moves by the answer.
 * A job run twice, or one that died between 2 and 3, asks again with the payment's end-to-end id: the boundary
 * answers a copy with its first answer and never credits twice, and step 3 moves the payment once.
 */
import type { AppContext } from '../platform/context.ts';
import type { Sql } from '../platform/db/database.ts';
import type { OpenFinancePix, OpenFinancePixOutcome } from '../platform/extensions.ts';
import { LIMITS } from '../platform/limits.ts';

export interface IncomingOfPayment {
  /** The receiving account at pixd. */
  conta: string;
  amountCents: number;
  payer: { nome?: string; cpf?: string; cnpj?: string };
  infoPagador: string | null;
  endToEndId: string;
  /** The receiving account's clock's instant, at which the payer's institution pays. */
  now: Date;
}

/** One payment's settlement: its two steps under the payment's lock, each in a transaction of its own. */
export interface OfSettlement {
  /** Step 1: the Pix to ask the payer's institution for, marked asked; nothing when no longer due (or refused). */
  ask(sql: Sql): Promise<IncomingOfPayment | undefined>;
  /** Step 3: the answer moves the payment if it still waits (else it was moved already: nothing). */
  answer(sql: Sql, outcome: OpenFinancePixOutcome): Promise<void>;
}

export async function settleThroughPayer(
  ctx: Pick<AppContext, 'db' | 'clock' | 'payerInstitution'>,
  settlement: OfSettlement,
): Promise<void> {
  const due = await ctx.db.tx((sql) => settlement.ask(sql));
  if (due === undefined) return;
  const outcome = await ctx.payerInstitution.openFinancePaymentDue(ctx, pixOf(due), due.now);
  await ctx.db.tx((sql) =>
    settlement.answer(
      sql,
      'refused' in outcome ? { refused: outcome.refused.slice(0, LIMITS.ofRefusalMotivoMaxChars) } : outcome,
    ),
  );
}

function pixOf(payment: IncomingOfPayment): OpenFinancePix {
  const { payer } = payment;
  return {
    endToEndId: payment.endToEndId,
    amountCents: payment.amountCents,
    conta: payment.conta,
    payer: {
      nome: payer.nome ?? 'Pagador',
      // A company's payment names the company; the person who authorised it is its representative.
      ...(payer.cnpj ? { cnpj: payer.cnpj } : payer.cpf ? { cpf: payer.cpf } : {}),
    },
    infoPagador: payment.infoPagador,
  };
}
