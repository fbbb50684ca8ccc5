/**
 * The settlement side of a split refund (./refunds.ts asks it): the beneficiaries' parts go back to the receiver
 * in the refund's own transaction, right before the refund leaves the receiver's account, so the refund's total
 * leaves as one Pix and each beneficiary gives back exactly its part. A beneficiary who no longer holds its part
 * refuses the refund (NAO_REALIZADO): no balance goes below zero, and nothing moves.
 */
import type { Sql } from '../../platform/db/database.ts';
import { balanceCents, ledgerCode, post } from '../../platform/ledger/ledger.ts';
import { formatAmount } from '../../platform/money.ts';
import { refundShares, type PositionShare } from './store.ts';

/** The parts the beneficiaries give back for the refund (the receiver's own part, position 0, stays in place). */
export async function beneficiaryParts(sql: Sql, refundId: number): Promise<PositionShare[]> {
  return (await refundShares(sql, refundId)).filter((s) => s.position > 0 && s.amount_cents > 0);
}

/** Why the parts cannot be taken back (a beneficiary's available balance below its part); the caller holds the locks. */
export async function shortfallOf(sql: Sql, parts: PositionShare[]): Promise<string | undefined> {
  for (const part of parts) {
    const available = await balanceCents(sql, ledgerCode.available(part.account_id));
    if (available < part.amount_cents)
      return `Um beneficiário do split não tem saldo para devolver sua parte (${formatAmount(part.amount_cents)}).`;
  }
  return undefined;
}

/** One entry: each part from its beneficiary's available balance back to the receiver's. */
export async function takeBackParts(
  sql: Sql,
  refund: { account_id: number; rtr_id: string },
  parts: PositionShare[],
  now: Date,
): Promise<number> {
  const backCents = parts.reduce((sum, part) => sum + part.amount_cents, 0);
  if (backCents === 0) return 0;
  await post(sql, {
    kind: 'split_devolucao',
    reference: refund.rtr_id,
    accountId: refund.account_id,
    at: now,
    postings: [
      ...parts.map((part) => ({ code: ledgerCode.available(part.account_id), amountCents: -part.amount_cents })),
      { code: ledgerCode.available(refund.account_id), amountCents: backCents },
    ],
  });
  return backCents;
}
