/**
 * Money returned on a Pix that came from another account of this pixd (a refund the receiver asked, or a
 * MED refund) reaches that account, as it would reach a payer at another institution through its PSP:
 * `external:pix -> customer:<payer>:available`, kind `pix_devolucao_recebida` (the payer's report shows
 * `pixDevolucaoRecebida`). Called in the transaction that posts the refund out of the receiver's account.
 */
import type { Sql } from '../../platform/db/database.ts';
import { ledgerCode, transfer } from '../../platform/ledger/ledger.ts';
import { pixdPayerOf } from './store.ts';

export async function creditPixdPayer(
  sql: Sql,
  refund: { receivedPixId: number; amountCents: number; rtrId: string },
  now: Date,
): Promise<void> {
  const payer = await pixdPayerOf(sql, refund.receivedPixId);
  if (payer === undefined) return;
  await transfer(sql, {
    kind: 'pix_devolucao_recebida',
    reference: refund.rtrId,
    accountId: payer,
    at: now,
    from: ledgerCode.externalPix,
    to: ledgerCode.available(payer),
    amountCents: refund.amountCents,
  });
}
