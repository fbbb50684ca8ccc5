/**
 * Group commit of settlements, as `ChargeCreateBatcher` does for creates: payments whose charge was read and
 * decided (the engine's settlement path) and that arrive while a settlement statement is in flight are written
 * together by one multi-row statement (`writeSettlements`). PostgreSQL's cost of a settlement is mostly per
 * statement (the round trip, planning, the commit's WAL flush), so under load it is spent once per batch; an
 * idle node writes each payment at once.
 *
 * Each payment keeps its own outcome: a charge changed since it was read gives that payment alone `undefined`
 * (the engine then decides it again under the charge's lock), and any statement failure (a duplicate end-to-end
 * id, a deadlock with another transaction) sends the batch's payments again one by one, so only the culprit
 * fails. Two payments of one charge never share a statement: the second waits for the next one, where its
 * compare-and-set finds the charge already paid.
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import { writeSettlements, type Settlement } from './store.ts';

interface Pending {
  settlement: Settlement;
  resolve(outcome: ReceivedPixRow | undefined): void;
  reject(error: unknown): void;
}

export class SettlementBatcher {
  private queue: Pending[] = [];
  private statementsInFlight = 0;
  /** Statements written and the payments they carried: their ratio is the coalescing achieved. */
  readonly written = { statements: 0, settlements: 0 };

  constructor(private readonly sql: Sql) {}

  settle(settlement: Settlement): Promise<ReceivedPixRow | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ settlement, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.statementsInFlight < LIMITS.settlementStatementsInFlight && this.queue.length) {
      const batch: Pending[] = [];
      const later: Pending[] = [];
      const charges = new Set<number>();
      for (const pending of this.queue) {
        const chargeId = pending.settlement.charge.id;
        if (batch.length < LIMITS.settlementBatchMax && !charges.has(chargeId)) {
          batch.push(pending);
          charges.add(chargeId);
        } else later.push(pending);
      }
      this.queue = later;
      this.statementsInFlight++;
      void this.write(batch).finally(() => {
        this.statementsInFlight--;
        this.pump();
      });
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    this.written.settlements += batch.length;
    this.written.statements++;
    try {
      const outcomes = await writeSettlements(
        this.sql,
        batch.map((p) => p.settlement),
      );
      batch.forEach((p, n) => p.resolve(outcomes[n]));
    } catch (error) {
      if (batch.length > 1) {
        this.written.statements += batch.length;
        await Promise.all(
          batch.map((p) =>
            writeSettlements(this.sql, [p.settlement]).then(([outcome]) => p.resolve(outcome), p.reject),
          ),
        );
        return;
      }
      for (const p of batch) p.reject(error);
    }
  }
}

/** Group commit per database (not per transaction: a transaction's statements wait for its own commit). */
const batchers = new WeakMap<Sql, SettlementBatcher>();

export function settlementBatcherFor(sql: Sql): SettlementBatcher {
  let batcher = batchers.get(sql);
  if (!batcher) batchers.set(sql, (batcher = new SettlementBatcher(sql)));
  return batcher;
}
