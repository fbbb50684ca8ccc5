/** Reconciliation reports: requests, their status and their file. No HTTP here. */
import { Readable } from 'node:stream';
import type { Database, Sql } from '../../platform/db/database.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { randomUUID } from '../../platform/ids.ts';
import type { Caller } from '../shared/caller.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { enqueueGeneration } from './generator.ts';
import { selectedTypes } from './record-types.ts';
import type { ReportRequest, ReportView } from './schemas.ts';
import { findReport, insertReportOnce, readChunk, type ReportRow } from './store.ts';

export const REPORT_INVALID = 'ExtratoConciliacaoConsultaInvalida';

const view = (row: ReportRow): ReportView => ({
  id: row.public_id,
  dataSolicitacao: row.requested_at.toISOString(),
  status: row.status,
});

/**
 * Records the request and queues its generation. A request with the parameters of an earlier one (same
 * day, same record types) answers that one, with its status: CONCLUIDO when its file is ready, so the
 * file is never built twice. The day is over (it is before today), so its movements no longer change.
 */
export async function requestReport(
  sql: Sql,
  caller: Caller,
  body: ReportRequest,
): Promise<{ view: ReportView; created: boolean }> {
  const today = brasiliaDate(caller.now);
  if (body.dataMovimento >= today) {
    throw invalid(REPORT_INVALID, `dataMovimento deve ser anterior à data atual (${today}).`, [
      { property: 'dataMovimento', reason: 'deve ser anterior à data atual.', value: body.dataMovimento },
    ]);
  }
  const { row, created } = await insertReportOnce(sql, {
    publicId: randomUUID(),
    accountId: caller.accountId,
    dataMovimento: body.dataMovimento,
    tipos: selectedTypes(body.tipoRegistros).join(','),
    now: caller.now,
  });
  if (created) await enqueueGeneration(sql, caller.accountId, row.id, caller.now);
  return { view: view(row), created };
}

/** The status while the file is not ready, or the file (as a stream) once it is. */
export async function readReport(
  db: Database,
  caller: Caller,
  publicId: string,
): Promise<{ ready: false; view: ReportView } | { ready: true; file: ReportFileStream }> {
  const row = await findReport(db, caller.accountId, publicId);
  if (!row) throw notFound(`Relatório ${publicId} não encontrado.`);
  if (row.status !== 'CONCLUIDO') return { ready: false, view: view(row) };
  return { ready: true, file: fileStream(db, row) };
}

export interface ReportFileStream {
  name: string;
  bytes: number;
  body: Readable;
}

/** Reads the stored chunks one at a time as the client takes them (back-pressure through the stream). */
function fileStream(db: Database, row: ReportRow): ReportFileStream {
  async function* chunks() {
    for (let seq = 0; seq < (row.chunk_count ?? 0); seq++)
      yield Buffer.from(await readChunk(db, row.id, row.generation, seq));
  }
  return {
    name: `extrato-conciliacao-${row.data_movimento}-${row.public_id}.csv`,
    bytes: row.size_bytes ?? 0,
    body: Readable.from(chunks(), { objectMode: false }),
  };
}
