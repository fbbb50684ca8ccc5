/**
 * Statement files from the ledger, and the schedules that make them on the account's clock.
 *
 * A file covers whole Brasília days: its opening balance is the sum of the account's available lines
 * written before the first day starts (what `GET /v2/gn/saldo` answered at that instant), one segment E per
 * journal line during the period, and its closing balance the sum of the lines before the last day ends,
 * read separately: `cnabStatement` refuses to write a file whose movements do not lead from one to the other.
 *
 * A schedule has one job in the outbox at a time (`statement.run`), due at its `next_run_at` (a Brasília
 * midnight on the account's clock): the job makes the file of the period that just ended, then moves
 * `next_run_at` on and queues the next job, in one transaction. A job whose instant is no longer the
 * schedule's (changed, deactivated, or delivered twice) does nothing.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { ledgerCode } from '../../platform/ledger/ledger.ts';
import { LIMITS } from '../../platform/limits.ts';
import {
  brasiliaDate,
  brasiliaDay,
  brasiliaDayStart,
  fromEpochDay,
  toEpochDay,
  weekday,
} from '../../platform/calendar.ts';
import { findAccount } from '../../accounts/store.ts';
import { balanceBefore, ledgerAccountIdOf, movementsBetween } from '../../pix/reports/store.ts';
import { cnabStatement, type CnabMovement } from './cnab.ts';
import { describeMovement } from './categories.ts';
import { servedBytes } from './files.ts';
import {
  findSchedule,
  insertFileOnce,
  lockSchedule,
  nextFileSequence,
  updateSchedule,
  type Periodicidade,
} from './store.ts';

/** Brasília days, inclusive. */
export interface Period {
  start: string;
  end: string;
}

const MONDAY = 1;

/** The day (epoch day) of a schedule's next run after `today`: tomorrow, next Monday, the 1st of next month. */
export function nextRunDay(periodicidade: Periodicidade, today: number): number {
  if (periodicidade === 'diario') return today + 1;
  if (periodicidade === 'semanal') {
    let day = today + 1;
    while (weekday(day) !== MONDAY) day++;
    return day;
  }
  const [year, month] = fromEpochDay(today).split('-').map(Number);
  return toEpochDay(month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`);
}

/** The period a run on `runDay` covers: the day, week (Monday to Sunday) or month that just ended. */
export function periodOf(periodicidade: Periodicidade, runDay: number): Period {
  const end = fromEpochDay(runDay - 1);
  if (periodicidade === 'diario') return { start: end, end };
  if (periodicidade === 'semanal') return { start: fromEpochDay(runDay - 7), end };
  return { start: `${end.slice(0, 8)}01`, end };
}

/** The instant of the next run after `now` (a Brasília midnight). */
export const nextRunAt = (periodicidade: Periodicidade, now: Date) =>
  brasiliaDayStart(fromEpochDay(nextRunDay(periodicidade, toEpochDay(brasiliaDate(now)))));

/** A compressed file is a ZIP (`.zip`) holding the `.RET` of the same name (files.ts). */
export const statementFileName = (conta: string, p: Period, compressed = false) =>
  `CNAB240_${conta}_${p.start.replaceAll('-', '')}_${p.end.replaceAll('-', '')}.${compressed ? 'zip' : 'RET'}`;

/** Builds the account's file of `period` and stores it (once per period). */
export async function generateStatement(
  db: Database,
  accountId: number,
  period: Period,
  now: Date,
  compressed = false,
): Promise<string> {
  const account = await findAccount(db, accountId);
  if (!account) throw new Error(`statement: account ${accountId} not found`);
  const span = { start: brasiliaDayStart(period.start), end: brasiliaDay(period.end).end };
  const ledgerAccountId = await ledgerAccountIdOf(db, ledgerCode.available(accountId));
  const movements: CnabMovement[] = [];
  let openingCents = 0;
  let closingCents = 0;
  if (ledgerAccountId !== undefined) {
    openingCents = await balanceBefore(db, ledgerAccountId, span.start);
    closingCents = await balanceBefore(db, ledgerAccountId, span.end);
    for await (const m of movementsBetween(db, ledgerAccountId, span, LIMITS.reportBatchRows))
      movements.push({
        amountCents: m.amountCents,
        date: brasiliaDate(new Date(m.atMs)),
        document: m.reference,
        ...describeMovement(m.kind, m.amountCents),
      });
  }
  const name = statementFileName(account.conta, period, compressed);
  await db.tx(async (sql) => {
    const sequence = await nextFileSequence(sql, accountId);
    const content = cnabStatement({
      account: { documento: account.documento, conta: account.conta, nome: account.nome },
      sequence,
      generatedAt: now,
      startDate: period.start,
      endDate: period.end,
      openingCents,
      closingCents,
      movements,
    });
    await insertFileOnce(sql, {
      accountId,
      name,
      periodStart: period.start,
      periodEnd: period.end,
      sequence,
      at: now,
      content,
      sizeBytes: servedBytes(name, content, now).length,
    });
  });
  return name;
}

type Payload = { scheduleId: number; runAt: string };

export const STATEMENT_TOPIC = defineTopic<Payload>({
  name: 'statement.run',
  handler: ({ db, clock }) => statementRunHandler(db, clock),
});

export function enqueueRun(sql: Sql, accountId: number, scheduleId: number, runAt: Date, now: Date): Promise<number> {
  return enqueue(sql, {
    topic: STATEMENT_TOPIC,
    payload: { scheduleId, runAt: runAt.toISOString() },
    accountId,
    availableAt: runAt,
    now,
  });
}

function statementRunHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Payload>): Promise<JobOutcome> => {
    const runAt = new Date(job.payload.runAt);
    const runDay = toEpochDay(brasiliaDate(runAt));
    const current = await findSchedule(db, job.payload.scheduleId);
    if (current?.status !== 'ativo' || current.next_run_at?.getTime() !== runAt.getTime()) return { done: true };
    const now = clock.forAccount(job.accountId).now();
    // The file first (it is stored once per period, so a second delivery only finds it there), then the move on.
    const period = periodOf(current.periodicidade, runDay);
    await generateStatement(db, current.account_id, period, now, current.comprimir_arquivos);
    await db.tx(async (sql) => {
      const schedule = await lockSchedule(sql, job.payload.scheduleId);
      if (schedule?.status !== 'ativo' || schedule.next_run_at?.getTime() !== runAt.getTime()) return;
      const next = brasiliaDayStart(fromEpochDay(nextRunDay(schedule.periodicidade, runDay)));
      await updateSchedule(sql, schedule.id, { ...schedule, next_run_at: next }, now);
      await enqueueRun(sql, schedule.account_id, schedule.id, next, now);
    });
    return { done: true };
  };
}
