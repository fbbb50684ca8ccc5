/**
 * Group commit for the common create (a fresh location, nothing else to write): requests that arrive while
 * earlier statements are in flight are written together by one multi-row statement. PostgreSQL's cost of a
 * create is mostly per statement (parse, plan, commit, wake-ups), so under load this spends it once per
 * batch; an idle service writes each request at once, so nothing waits for a batch to fill.
 * Each request still gets its own outcome: a key problem refuses only its charge, and any statement failure
 * (a txid already taken, or a row the database rejects for a reason validation did not foresee — it fails the
 * whole statement, writing nothing) sends the batch's requests again one by one, so only the culprit fails:
 * nothing one tenant sends can fail another tenant's create.
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { insertChargesOnNewLocations, type NewChargeOnNewLocation, type NewChargeOutcome } from './store.ts';

interface Pending {
  charge: NewChargeOnNewLocation<unknown>;
  resolve(outcome: NewChargeOutcome): void;
  reject(error: unknown): void;
}

export class ChargeCreateBatcher {
  private readonly queue: Pending[] = [];
  private statementsInFlight = 0;
  /** Statements written and the charges they carried: their ratio is the coalescing achieved. */
  readonly written = { statements: 0, charges: 0 };

  constructor(private readonly sql: Sql) {}

  create<B>(charge: NewChargeOnNewLocation<B>): Promise<NewChargeOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ charge, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.statementsInFlight < LIMITS.chargeCreateStatementsInFlight && this.queue.length) {
      const batch = this.queue.splice(0, LIMITS.chargeCreateBatchMax);
      this.statementsInFlight++;
      void this.write(batch).finally(() => {
        this.statementsInFlight--;
        this.pump();
      });
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    this.written.charges += batch.length;
    try {
      this.written.statements++;
      const outcomes = await insertChargesOnNewLocations(
        this.sql,
        batch.map((p) => p.charge),
      );
      batch.forEach((p, n) => p.resolve(outcomes[n]));
    } catch (error) {
      if (batch.length > 1) {
        this.written.statements += batch.length;
        await Promise.all(
          batch.map((p) =>
            insertChargesOnNewLocations(this.sql, [p.charge]).then(([outcome]) => p.resolve(outcome), p.reject),
          ),
        );
        return;
      }
      for (const p of batch) p.reject(error);
    }
  }
}
