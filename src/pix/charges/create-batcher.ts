/**
 * Group commit for the common create (a fresh location, nothing else to write; src/platform/db/group-commit.ts):
 * requests that arrive while earlier statements are in flight are written together by one multi-row statement.
 * Each request still gets its own outcome: a key problem refuses only its charge, and any statement failure
 * (a txid already taken, or a row the database rejects for a reason validation did not foresee — it fails the
 * whole statement, writing nothing) sends the batch's requests again one by one, so only the culprit fails:
 * nothing one tenant sends can fail another tenant's create.
 */
import { GroupCommit, perDatabase } from '../../platform/db/group-commit.ts';
import { LIMITS } from '../../platform/limits.ts';
import { insertChargesOnNewLocations, type NewChargeOnNewLocation, type NewChargeOutcome } from './store.ts';

export const batcherFor = perDatabase(
  (sql) =>
    new GroupCommit<NewChargeOnNewLocation<unknown>, NewChargeOutcome>({
      write: (charges) => insertChargesOnNewLocations(sql, charges),
      statementsInFlight: LIMITS.chargeCreateStatementsInFlight,
      batchMax: LIMITS.chargeCreateBatchMax,
    }),
);
