/** Storage of report requests and their files, and the journal reads a report is built from. */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { ReportStatus } from './schemas.ts';
import type { Movement } from './layout.ts';

export interface ReportRow {
  id: number;
  public_id: string;
  account_id: number;
  /** YYYY-MM-DD. */
  data_movimento: string;
  tipos: string;
  status: ReportStatus;
  requested_at: Date;
  generation: number;
  size_bytes: number | null;
  chunk_count: number | null;
}

const COLUMNS = `id, public_id, account_id, to_char(data_movimento, 'YYYY-MM-DD') as data_movimento, tipos, status, requested_at, generation, size_bytes, chunk_count`;

/** Inserts the request unless one with the same parameters exists; returns the row and whether it is new. */
export async function insertReportOnce(
  sql: Sql,
  r: { publicId: string; accountId: number; dataMovimento: string; tipos: string; now: Date },
): Promise<{ row: ReportRow; created: boolean }> {
  const inserted = await sql.query<ReportRow>(
    `insert into reports (public_id, account_id, data_movimento, tipos, status, requested_at) values ($1, $2, $3, $4, 'AGUARDANDO_PROCESSAMENTO', $5)
     on conflict (account_id, data_movimento, tipos) do nothing returning ${COLUMNS}`,
    [r.publicId, r.accountId, r.dataMovimento, r.tipos, r.now],
  );
  if (inserted.rows.length) return { row: inserted.rows[0], created: true };
  const { rows } = await sql.query<ReportRow>(
    `select ${COLUMNS} from reports where account_id = $1 and data_movimento = $2 and tipos = $3`,
    [r.accountId, r.dataMovimento, r.tipos],
  );
  return { row: rows[0], created: false };
}

/** Only the owner sees a report: another account's id reads as absent. */
export async function findReport(sql: Sql, accountId: number, publicId: string): Promise<ReportRow | undefined> {
  const { rows } = await sql.query<ReportRow>(
    `select ${COLUMNS} from reports where account_id = $1 and public_id = $2`,
    [accountId, publicId],
  );
  return rows[0];
}

/**
 * Starts a generation attempt: EM_PROCESSAMENTO under a new generation number. Undefined when the file
 * is already done (a job delivered twice) or the report is gone.
 */
export async function startGeneration(sql: Sql, reportId: number, now: Date): Promise<ReportRow | undefined> {
  const { rows } = await sql.query<ReportRow>(
    `update reports set status = 'EM_PROCESSAMENTO', generation = generation + 1, started_at = $2
     where id = $1 and status <> 'CONCLUIDO' returning ${COLUMNS}`,
    [reportId, now],
  );
  return rows[0];
}

/**
 * Marks the file of `generation` as the report's. Only the latest attempt can finish: an older one
 * still running when a newer started (its lease ran out) gets false.
 */
export async function finishGeneration(
  sql: Sql,
  reportId: number,
  generation: number,
  file: { lines: number; bytes: number; chunks: number },
  now: Date,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update reports set status = 'CONCLUIDO', finished_at = $3, line_count = $4, size_bytes = $5, chunk_count = $6
     where id = $1 and generation = $2 and status = 'EM_PROCESSAMENTO'`,
    [reportId, generation, now, file.lines, file.bytes, file.chunks],
  );
  // The winner removes what earlier attempts left; a superseded attempt removes its own.
  await sql.query(`delete from report_chunks where report_id = $1 and generation ${rowCount ? '<>' : '='} $2`, [
    reportId,
    generation,
  ]);
  return rowCount > 0;
}

export async function insertChunk(
  sql: Sql,
  reportId: number,
  generation: number,
  seq: number,
  data: string,
): Promise<void> {
  await sql.query('insert into report_chunks (report_id, generation, seq, data) values ($1, $2, $3, $4)', [
    reportId,
    generation,
    seq,
    data,
  ]);
}

export async function readChunk(sql: Sql, reportId: number, generation: number, seq: number): Promise<string> {
  const { rows } = await sql.query<{ data: string }>(
    'select data from report_chunks where report_id = $1 and generation = $2 and seq = $3',
    [reportId, generation, seq],
  );
  if (!rows.length) throw new Error(`report ${reportId} generation ${generation} lacks chunk ${seq}`);
  return rows[0].data;
}

// --- Journal reads ---

export async function ledgerAccountIdOf(sql: Sql, code: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from ledger_accounts where code = $1', [code]);
  return rows[0]?.id;
}

/** The balance of a ledger account from the lines of entries written before `at`. */
export async function balanceBefore(sql: Sql, ledgerAccountId: number, at: Date): Promise<number> {
  const { rows } = await sql.query<{ total: number }>(
    `select coalesce(sum(l.amount_cents), 0)::bigint as total from journal_lines l join journal_entries e on e.id = l.entry_id
     where l.ledger_account_id = $1 and e.created_at < $2`,
    [ledgerAccountId, at],
  );
  return rows[0].total;
}

/**
 * The lowest and highest entry id written in [start, end), over all accounts. Every entry of the day lies
 * between them even if the clock ever moved backwards; entries in between from other instants are
 * filtered out by the page query.
 */
export async function entryIdRange(
  sql: Sql,
  start: Date,
  end: Date,
): Promise<{ minId: number; maxId: number } | undefined> {
  const { rows } = await sql.query<{ min_id: number | null; max_id: number | null }>(
    'select min(id) as min_id, max(id) as max_id from journal_entries where created_at >= $1 and created_at < $2',
    [start, end],
  );
  const { min_id, max_id } = rows[0];
  return min_id === null || max_id === null ? undefined : { minId: min_id, maxId: max_id };
}

export interface PageCursor {
  entryId: number;
  lineId: number;
}

export interface MovementPage {
  /** The page's lines of entries written during the day, in journal order. */
  movements: Movement[];
  /** How many lines the page read, in the day or not: a full page means there may be more. */
  scanned: number;
  /** Where the next page starts. */
  next: PageCursor | undefined;
}

/**
 * One keyset page of a ledger account's lines in journal order (entry id, then line id) up to the day's
 * last entry id. The inner limit reads exactly one page from the (ledger_account_id, entry_id, id) index,
 * starting where the last page stopped, and each line then fetches its entry by primary key (`limit 1`
 * keeps that a per-line lookup): the cost follows the account's own movements, however many other
 * accounts wrote entries that day. Lines of entries outside the day (only if the clock once went back)
 * are read and dropped, so a full page always means "maybe more".
 */
export async function movementPage(
  db: Database,
  q: { ledgerAccountId: number; after: PageCursor; maxEntryId: number; day: { start: Date; end: Date }; limit: number },
): Promise<MovementPage> {
  // Queries run as named prepared statements. After five runs PostgreSQL may switch to a generic plan,
  // which for unknown values walks the entry_id index of every account's lines; custom plans keep the
  // per-account index. Memoize only adds overhead here (entry ids never repeat within a page). Both
  // settings last for this transaction only.
  const { rows } = await db.tx(async (sql) => {
    await sql.query('set local plan_cache_mode = force_custom_plan');
    await sql.query('set local enable_memoize = off');
    return sql.query<{
      line_id: number;
      entry_id: number;
      amount_cents: number;
      kind: string;
      reference: string;
      at_ms: number;
    }>(
      `select l.id as line_id, l.entry_id, l.amount_cents, e.kind, e.reference, floor(extract(epoch from e.created_at) * 1000)::bigint as at_ms
       from (select id, entry_id, amount_cents from journal_lines
             where ledger_account_id = $1 and (entry_id, id) > ($2, $3) and entry_id <= $4
             order by entry_id, id limit $5) l
       cross join lateral (select kind, reference, created_at from journal_entries where id = l.entry_id limit 1) e
       order by l.entry_id, l.id`,
      [q.ledgerAccountId, q.after.entryId, q.after.lineId, q.maxEntryId, q.limit],
    );
  });
  const start = q.day.start.getTime();
  const end = q.day.end.getTime();
  const movements: Movement[] = [];
  for (const r of rows) {
    if (r.at_ms >= start && r.at_ms < end)
      movements.push({
        entryId: r.entry_id,
        amountCents: r.amount_cents,
        kind: r.kind,
        reference: r.reference,
        atMs: r.at_ms,
      });
  }
  const last = rows[rows.length - 1];
  return { movements, scanned: rows.length, next: last && { entryId: last.entry_id, lineId: last.line_id } };
}

/** The account's latest report requests, newest first (the console's list; the API reads one by id). */
export async function recentReports(sql: Sql, accountId: number, limit: number): Promise<ReportRow[]> {
  const { rows } = await sql.query<ReportRow>(
    `select ${COLUMNS} from reports where account_id = $1 order by requested_at desc, id desc limit $2`,
    [accountId, limit],
  );
  return rows;
}

/**
 * Every movement of a ledger account in [start, end), in journal order, one keyset page at a time (what
 * the CNAB statements read; the report generator pages itself to read ahead while it writes).
 */
export async function* movementsBetween(
  db: Database,
  ledgerAccountId: number,
  period: { start: Date; end: Date },
  pageRows: number,
): AsyncGenerator<Movement> {
  const range = await entryIdRange(db, period.start, period.end);
  if (!range) return;
  let after: PageCursor | undefined = { entryId: range.minId, lineId: 0 };
  while (after) {
    const page = await movementPage(db, {
      ledgerAccountId,
      after,
      maxEntryId: range.maxId,
      day: period,
      limit: pageRows,
    });
    yield* page.movements;
    after = page.scanned === pageRows ? page.next : undefined;
  }
}
