/**
 * Group commit of settlements (src/platform/db/group-commit.ts), as charge creation has: payments whose
 * charge was read and decided (the engine's settlement path) and that arrive while a settlement statement is
 * in flight are written together by one multi-row statement (`writeSettlements`).
 *
 * A charge changed since it was read gives that payment alone `undefined` (the engine then decides it again
 * under the charge's lock); a statement failure (a duplicate end-to-end id, a deadlock with another
 * transaction) sends the batch's payments again one by one. Two payments of one charge never share a
 * statement: the second waits for the next one, where its compare-and-set finds the charge already paid.
 */
import { GroupCommit, perDatabase } from '../../platform/db/group-commit.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import {
  readChargesForSettlement,
  writeSettlements,
  type ChargeForSettlement,
  type ChargeTarget,
  type Settlement,
} from './store.ts';

export const settlementBatcherFor = perDatabase(
  (sql) =>
    new GroupCommit<Settlement, ReceivedPixRow | undefined>({
      write: (settlements) => writeSettlements(sql, settlements),
      statementsInFlight: LIMITS.settlementStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
      keyOf: (settlement) => settlement.charge.id,
      lockOrder: (settlement) => settlement.charge.id,
    }),
);

/**
 * The reads before those writes, coalesced the same way: charges asked for (by receiver and txid) while a read
 * statement is in flight are read together by the next one. A read takes no lock and each payment is decided
 * on its own row, so sharing the statement changes nothing but the round trips (one per batch, not per payment).
 */
export const settlementReaderFor = perDatabase(
  (sql) =>
    new GroupCommit<Extract<ChargeTarget, { kind: 'charge' }>, ChargeForSettlement | undefined>({
      write: (targets) => readChargesForSettlement(sql, targets),
      statementsInFlight: LIMITS.settlementReadsInFlight,
      batchMax: LIMITS.settlementBatchMax,
    }),
);
