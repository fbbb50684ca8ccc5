/**
 * Refunds of a Pix divided by a split (`PUT /v2/gn/split/pix/:e2eid/devolucao/:id`, docs/split.md "Refunds"):
 * the same refund as any received Pix's (received/service.ts: idempotent per id, at most what is left of the Pix,
 * settled by its job), whose amount is divided between the positions in proportion to what each still holds of
 * the Pix (`allocateByWeights`). No position gives back more than it received: a full refund takes back exactly
 * the division; partial ones add up to it. The parts move at settlement (./refund-settlement.ts).
 */
import type { Sql } from '../../platform/db/database.ts';
import { invalid } from '../../platform/errors.ts';
import { allocateByWeights, parseAmount } from '../../platform/money.ts';
import type { Caller } from '../shared/caller.ts';
import { REFUND_INVALID, requestRefund } from '../received/service.ts';
import type { RefundRequest } from '../received/schemas.ts';
import { findReceivedPix } from '../received/store.ts';
import { insertRefundShares, sharesLeftOfPix } from './store.ts';

export async function requestSplitRefund(
  sql: Sql,
  caller: Caller,
  e2eid: string,
  refundId: string,
  body: RefundRequest,
) {
  // The Pix's lock first (requestRefund takes it again): what is left of each part is read under it.
  const pix = await findReceivedPix(sql, caller.accountId, e2eid, true);
  const left = pix ? await sharesLeftOfPix(sql, pix.id) : [];
  if (pix && !left.length)
    throw invalid(
      REFUND_INVALID,
      `O Pix ${e2eid} não foi dividido por split: devolva-o por /v2/pix/${e2eid}/devolucao.`,
      [{ property: 'e2eid', reason: 'Pix sem split.', value: e2eid }],
    );
  const result = await requestRefund(sql, caller, e2eid, refundId, body);
  if (result.created) {
    const parts = allocateByWeights(
      parseAmount(body.valor),
      left.map((share) => share.amount_cents),
    );
    await insertRefundShares(
      sql,
      result.refundRowId,
      left.map((share, i) => ({ ...share, amount_cents: parts[i] })),
    );
  }
  return result;
}
