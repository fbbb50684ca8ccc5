/**
 * Money returned on a Pix that came from another account of this pixd (a refund the receiver asked, or a
 * MED refund) reaches that account, as it would reach a payer at another institution through its PSP:
 * `external:pix -> customer:<payer>:available`, kind `pix_devolucao_recebida` (the payer's report shows
 * `pixDevolucaoRecebida`). Called in the transaction that posts the refund out of the receiver's account.
 */
import type { Sql } from '../../platform/db/database.ts';
import { ledgerCode, lockCustomers, transfer } from '../../platform/ledger/ledger.ts';
import { pixdPayerOf } from './store.ts';

export async function creditPixdPayer(
  sql: Sql,
  refund: { receivedPixId: number; amountCents: number; rtrId: string },
  now: Date,
): Promise<void> {
  const payer = await pixdPayerOf(sql, refund.receivedPixId);
  if (payer === undefined) return;
  await creditReturnedPix(sql, { accountId: payer, amountCents: refund.amountCents, rtrId: refund.rtrId }, now);
}

/**
 * Money returned on a Pix an account sent reaches it: from a receiver in this pixd (above) or, through the SPI,
 * from another institution's pacs.004 (src/spi/returns.ts). The caller holds the account's lock.
 */
export async function creditReturnedPix(
  sql: Sql,
  back: { accountId: number; amountCents: number; rtrId: string },
  now: Date,
): Promise<void> {
  await transfer(sql, {
    kind: 'pix_devolucao_recebida',
    reference: back.rtrId,
    accountId: back.accountId,
    at: now,
    from: ledgerCode.externalPix,
    to: ledgerCode.available(back.accountId),
    amountCents: back.amountCents,
  });
}

/**
 * The customers' locks of a refund of a received Pix, in the global lock order (docs/ledger.md, "Lock order"):
 * the receiver who returns the money and, when the Pix came from another account of this pixd, that payer,
 * whom `creditPixdPayer` credits in the same transaction, and the split's beneficiaries who give parts back. Taken before the refund's first posting: a refund
 * each way between two accounts would otherwise lock their totals in opposite orders.
 */
export async function lockRefundParties(
  sql: Sql,
  receiverAccountId: number,
  receivedPixId: number,
  /** Beneficiaries of a split who give their parts back in the same transaction (split/refund-settlement.ts). */
  others: number[] = [],
): Promise<void> {
  const payer = await pixdPayerOf(sql, receivedPixId);
  await lockCustomers(sql, [receiverAccountId, ...(payer === undefined ? [] : [payer]), ...others]);
}
