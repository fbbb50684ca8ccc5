/**
 * The faults in force, as the core asks for them (`FaultHooks`, installed as `AppContext.faults` by the
 * sandbox extension), and the service behind the API, the CLI and the console: set, list, clear.
 *
 * Asking must cost nothing when no fault is set (the rate-limit check asks on every limited request), so each
 * node keeps the table in memory: the node that changes a fault updates its copy at once, every node reloads
 * it when it is older than a second and someone asks (no timer to stop). A fault that answers an occurrence
 * is counted in the database in the statement that claims it (`consumeFault`), so nodes never answer more
 * occurrences than were asked for; only whether a fault exists at all may lag a second on another node.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { OffsetClock } from '../../platform/clock.ts';
import type { FaultHooks, FaultKind, FaultParams } from '../../platform/faults.ts';
import { FAULT_KINDS } from './kinds.ts';
import { consumeFault, deleteFaults, readLiveFaults, upsertFault, type FaultRow } from './store.ts';

/** How old this node's copy of the table may be before a question reloads it. */
const RELOAD_AFTER_MS = 1000;

/** A fault this node knows is in force: until when, on the account's clock (null: until cleared or spent). */
interface Held {
  endsAtMs: number | null;
}

export class FaultBook implements FaultHooks {
  private held = new Map<number, Map<FaultKind, Held>>();
  /** Bumped by every local change, so a reload read before it cannot put an older copy back. */
  private generation = 0;
  private loadedAtMs = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;

  constructor(
    readonly db: Database,
    readonly clock: OffsetClock,
  ) {}

  active(accountId: number, kind: FaultKind): boolean {
    if (!this.loading && Date.now() - this.loadedAtMs > RELOAD_AFTER_MS)
      this.loading = this.reload()
        .catch(() => undefined)
        .finally(() => {
          this.loading = undefined;
        });
    const held = this.held.get(accountId)?.get(kind);
    if (!held) return false;
    return held.endsAtMs === null || this.clock.forAccount(accountId).nowMs() < held.endsAtMs;
  }

  async take<K extends FaultKind>(sql: Sql, accountId: number, kind: K): Promise<FaultParams[K] | undefined> {
    if (!this.active(accountId, kind)) return undefined;
    const row = await consumeFault(sql, accountId, kind, this.clock.forAccount(accountId).now());
    if (!row || row.remaining === 0) this.drop(accountId, kind);
    return row?.params as FaultParams[K] | undefined;
  }

  /** The whole table again (a snapshot restored, a question after a second). A later reload or change wins. */
  async reload(): Promise<void> {
    const mine = ++this.generation;
    const rows = await readLiveFaults(this.db);
    if (this.generation !== mine) return;
    this.held = new Map();
    for (const row of rows) this.holdRow(row);
    this.loadedAtMs = Date.now();
  }

  /** After a change committed by this node. */
  hold(row: FaultRow): void {
    this.generation++;
    this.holdRow(row);
  }

  private holdRow(row: FaultRow): void {
    let kinds = this.held.get(row.account_id);
    if (!kinds) this.held.set(row.account_id, (kinds = new Map()));
    kinds.set(row.kind, { endsAtMs: row.ends_at?.getTime() ?? null });
  }

  /** One kind gone, or every fault of the account (cleared, or the account reset). */
  drop(accountId: number, kind?: FaultKind): void {
    this.generation++;
    if (kind) this.held.get(accountId)?.delete(kind);
    else this.held.delete(accountId);
  }
}

/** One book per node, found by its database (the context's routes, extension and console reach the same one). */
const books = new WeakMap<Database, FaultBook>();

export function faultBook(ctx: { db: Database; clock: OffsetClock }): FaultBook {
  let book = books.get(ctx.db);
  if (!book) books.set(ctx.db, (book = new FaultBook(ctx.db, ctx.clock)));
  return book;
}

/** A fault as the API shows it: its kind, what it does, and what limits it. */
export interface FaultView {
  tipo: FaultKind;
  parametros: Record<string, unknown>;
  vezesRestantes?: number;
  ate?: string;
  criacao: string;
}

const view = (row: FaultRow): FaultView => ({
  tipo: row.kind,
  parametros: row.params,
  ...(row.remaining !== null && { vezesRestantes: row.remaining }),
  ...(row.ends_at && { ate: row.ends_at.toISOString() }),
  criacao: row.created_at.toISOString(),
});

/** A body already valid for its kind's schema (kinds.ts): replaces the account's fault of that kind. */
export async function setFault(
  book: FaultBook,
  accountId: number,
  kind: FaultKind,
  input: Record<string, unknown> & { vezes?: number; segundos?: number },
): Promise<FaultView> {
  const { vezes, segundos, ...fields } = input;
  const now = book.clock.forAccount(accountId).now();
  const row = await upsertFault(book.db, {
    account_id: accountId,
    kind,
    params: FAULT_KINDS[kind].params(fields) as Record<string, unknown>,
    remaining: vezes ?? null,
    ends_at: segundos ? new Date(now.getTime() + segundos * 1000) : null,
    created_at: now,
  });
  book.hold(row);
  return view(row);
}

/** The account's faults still in force, on its clock. */
export async function listFaults(book: FaultBook, accountId: number): Promise<FaultView[]> {
  const nowMs = book.clock.forAccount(accountId).nowMs();
  const rows = await readLiveFaults(book.db, accountId);
  return rows.filter((r) => !r.ends_at || r.ends_at.getTime() > nowMs).map(view);
}

export async function clearFaults(book: FaultBook, accountId: number, kind?: FaultKind): Promise<number> {
  const removed = await deleteFaults(book.db, accountId, kind);
  book.drop(accountId, kind);
  return removed;
}
