/**
 * Group commit: items that arrive while earlier statements are in flight are written together by one
 * multi-row statement. PostgreSQL's cost of a small write is mostly per statement (round trip, planning,
 * the commit's WAL flush), so under load it is paid once per batch; an idle node writes each item at once,
 * so nothing waits for a batch to fill. Used by charge creation and by the payment engine's settlement path.
 *
 * Each item keeps its own outcome: `write` answers one outcome per item, and when the statement fails as a
 * whole (a row the database refuses, a deadlock) the batch's items are written again one by one, so only the
 * culprit fails — nothing one tenant sends can fail another tenant's write.
 */
import type { Sql } from './database.ts';

/**
 * The advisory lock class of group statements' turns (`clusterTurn`): "pxgc". The other key names the kind of
 * statement (`GROUP_STATEMENT_KINDS`), so only statements of one kind wait for each other.
 */
const GROUP_STATEMENT_LOCK_CLASS = 0x70786763;
export const GROUP_STATEMENT_KINDS = { chargeCreate: 1 } as const;

/**
 * A CTE (`turn`) that makes a group statement of `kind` wait until no other node's statement of that kind is
 * running — it holds a transaction-level advisory lock until the statement commits — so several nodes sharing
 * one database write one such statement at a time, as one node does. Without it every node had its own
 * statement in flight: batches a node's share of the load, and as many statements, commits and WAL flushes
 * as nodes for the same charges (two nodes created charges 36 % slower than one; docs/performance.md,
 * "Node count"). While a node's statement waits its turn, its next batch grows; the database sees one
 * statement at a time with the batch of the whole cluster.
 *
 * The statement must read its rows from a relation joined with `turn`, so no row is produced, and no row
 * lock taken, before the lock is held: a statement waiting its turn holds nothing another waits for.
 */
export function clusterTurn(kind: (typeof GROUP_STATEMENT_KINDS)[keyof typeof GROUP_STATEMENT_KINDS]): string {
  return `turn as materialized (select pg_advisory_xact_lock(${GROUP_STATEMENT_LOCK_CLASS}, ${kind}))`;
}

interface Pending<In, Out> {
  item: In;
  resolve(outcome: Out): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions<In, Out> {
  /** One statement for `items`, answering their outcomes in the same order. */
  write(items: In[]): Promise<Out[]>;
  /** Statements in flight at once (a named limit of src/platform/limits.ts). */
  statementsInFlight: number;
  /** Items per statement at most. */
  batchMax: number;
  /** Items of one key never share a statement: a later one waits for the next (two payments of one charge). */
  keyOf?(item: In): unknown;
  /**
   * The global lock order of the rows the statement locks per item (docs/ledger.md, "Lock order"): a batch is
   * written sorted by it, so two statements in flight (or a statement and a transaction) that lock some of
   * the same rows lock them in the same order and queue instead of deadlocking.
   */
  lockOrder?(item: In): number;
}

export class GroupCommit<In, Out> {
  private queue: Pending<In, Out>[] = [];
  private inFlight = 0;
  /** Statements written and the items they carried: their ratio is the coalescing achieved. */
  readonly written = { statements: 0, items: 0 };

  constructor(private readonly options: GroupCommitOptions<In, Out>) {}

  submit(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.statementsInFlight && this.queue.length) {
      const batch = this.nextBatch();
      this.inFlight++;
      void this.write(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private nextBatch(): Pending<In, Out>[] {
    const { keyOf, batchMax } = this.options;
    if (!keyOf) return this.queue.splice(0, batchMax);
    const batch: Pending<In, Out>[] = [];
    const later: Pending<In, Out>[] = [];
    const keys = new Set<unknown>();
    for (const pending of this.queue) {
      const key = keyOf(pending.item);
      if (batch.length < batchMax && !keys.has(key)) {
        batch.push(pending);
        keys.add(key);
      } else later.push(pending);
    }
    this.queue = later;
    return batch;
  }

  private async write(batch: Pending<In, Out>[]): Promise<void> {
    const { lockOrder } = this.options;
    if (lockOrder) batch.sort((a, b) => lockOrder(a.item) - lockOrder(b.item));
    this.written.items += batch.length;
    this.written.statements++;
    try {
      const outcomes = await this.options.write(batch.map((p) => p.item));
      batch.forEach((p, n) => p.resolve(outcomes[n]));
    } catch (error) {
      if (batch.length > 1) {
        this.written.statements += batch.length;
        await Promise.all(
          batch.map((p) => this.options.write([p.item]).then(([outcome]) => p.resolve(outcome), p.reject)),
        );
        return;
      }
      for (const p of batch) p.reject(error);
    }
  }
}

/**
 * One instance per database handle, made on first use: a group commit belongs to the database (not to a
 * transaction, whose statements wait for its own commit), and writes on the database's group-commit
 * connections where it has them (database.ts, `Sql.groupCommit`).
 */
export function perDatabase<T>(make: (sql: Sql) => T): (sql: Sql) => T {
  const instances = new WeakMap<Sql, T>();
  return (sql) => {
    let instance = instances.get(sql);
    if (!instance) instances.set(sql, (instance = make(sql.groupCommit ?? sql)));
    return instance;
  };
}
