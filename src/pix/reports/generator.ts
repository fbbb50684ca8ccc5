/**
 * Builds a report file from the journal, run by the outbox (`report.generate`). It streams: journal
 * lines are read in keyset pages of LIMITS.reportBatchRows, each page is turned into text at once, and
 * the text goes to the database in chunks of about LIMITS.reportChunkBytes. Memory holds one page and
 * one chunk, whatever the day's size.
 *
 * Safe to run again: each attempt writes under a new generation number and only the latest attempt can
 * mark the report done (store.ts).
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { ledgerCode } from '../../platform/ledger/ledger.ts';
import { LIMITS } from '../../platform/limits.ts';
import { findAccount } from '../../accounts/store.ts';
import { brasiliaDay } from '../../platform/calendar.ts';
import { Statement, headerLine } from './layout.ts';
import type { TipoRegistro } from './record-types.ts';
import {
  balanceBefore,
  entryIdRange,
  finishGeneration,
  insertChunk,
  ledgerAccountIdOf,
  movementPage,
  startGeneration,
  type PageCursor,
} from './store.ts';

export const REPORT_TOPIC = defineTopic<{ reportId: number }>({
  name: 'report.generate',
  handler: ({ db, clock }) => reportGenerationHandler(db, clock),
});

export function enqueueGeneration(sql: Sql, accountId: number, reportId: number, now: Date): Promise<number> {
  return enqueue(sql, { topic: REPORT_TOPIC, payload: { reportId }, accountId, availableAt: now, now });
}

/** Accumulates text and writes it out in chunks; keeps at most about one chunk in memory. */
class ChunkWriter {
  private parts: string[] = [];
  private pendingBytes = 0;
  private seq = 0;
  private totalBytes = 0;

  constructor(
    private readonly db: Database,
    private readonly reportId: number,
    private readonly generation: number,
  ) {}

  /** Buffers `text`; true when a chunk's worth is waiting to be flushed. */
  add(text: string): boolean {
    if (text) {
      this.parts.push(text);
      const bytes = Buffer.byteLength(text);
      this.pendingBytes += bytes;
      this.totalBytes += bytes;
    }
    return this.pendingBytes >= LIMITS.reportChunkBytes;
  }

  async write(text: string): Promise<void> {
    if (this.add(text)) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.parts.length) return;
    await insertChunk(this.db, this.reportId, this.generation, this.seq++, this.parts.join(''));
    this.parts = [];
    this.pendingBytes = 0;
  }

  async finish(): Promise<{ chunks: number; bytes: number }> {
    await this.flush();
    return { chunks: this.seq, bytes: this.totalBytes };
  }
}

/**
 * Generates the file of one report. Returns false when there was nothing to do (done already, or superseded).
 * `clock`: the report's account's (the job's).
 */
export async function generateReport(db: Database, clock: Clock, reportId: number): Promise<boolean> {
  const report = await startGeneration(db, reportId, clock.now());
  if (!report) return false;
  const account = await findAccount(db, report.account_id);
  if (!account) throw new Error(`report ${reportId}: account ${report.account_id} not found`);
  const tipos = (report.tipos ? report.tipos.split(',') : []) as TipoRegistro[];
  const day = brasiliaDay(report.data_movimento);
  const ledgerAccountId = await ledgerAccountIdOf(db, ledgerCode.available(account.id));
  const opening = ledgerAccountId === undefined ? 0 : await balanceBefore(db, ledgerAccountId, day.start);

  const writer = new ChunkWriter(db, report.id, report.generation);
  const statement = new Statement(new Set(tipos), opening, day);
  await writer.write(
    headerLine({
      publicId: report.public_id,
      conta: account.conta,
      documento: account.documento,
      dataMovimento: report.data_movimento,
      generatedAt: clock.now(),
      tipos,
    }),
  );
  await writer.write(statement.opening());

  const range = ledgerAccountId === undefined ? undefined : await entryIdRange(db, day.start, day.end);
  if (ledgerAccountId !== undefined && range) {
    const fetch = (after: PageCursor) => {
      const page = movementPage(db, {
        ledgerAccountId,
        after,
        maxEntryId: range.maxId,
        day,
        limit: LIMITS.reportBatchRows,
      });
      // If writing fails while a page is in flight, that page is never awaited: its failure must not go unhandled.
      page.catch(() => undefined);
      return page;
    };
    let next = fetch({ entryId: range.minId, lineId: 0 });
    for (;;) {
      const page = await next;
      const more = page.scanned === LIMITS.reportBatchRows && page.next;
      // The next page is read (on another pooled connection) while this one is formatted and written out.
      if (more) next = fetch(more);
      for (const movement of page.movements) {
        if (writer.add(statement.movement(movement))) await writer.flush();
      }
      if (!more) break;
    }
  }

  await writer.write(statement.closing());
  const file = await writer.finish();
  return finishGeneration(db, report.id, report.generation, { lines: statement.lineCount, ...file }, clock.now());
}

export function reportGenerationHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<{ reportId: number }>): Promise<JobOutcome> => {
    await generateReport(db, clock.forAccount(job.accountId), job.payload.reportId);
    return { done: true };
  };
}
