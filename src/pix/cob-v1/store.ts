/** Payer documents an operator blocked for new `/v1/cob` charges (`POST /operator/blocked-documents`). */
import type { Sql } from '../../platform/db/database.ts';

export async function isDocumentBlocked(sql: Sql, documento: string): Promise<boolean> {
  const { rows } = await sql.query('select 1 from blocked_documents where documento = $1', [documento]);
  return rows.length > 0;
}

export async function blockDocument(sql: Sql, documento: string, reason: string, now: Date): Promise<void> {
  await sql.query(
    'insert into blocked_documents (documento, reason, created_at) values ($1, $2, $3) on conflict (documento) do update set reason = excluded.reason',
    [documento, reason, now],
  );
}
