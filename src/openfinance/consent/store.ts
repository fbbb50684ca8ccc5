/**
 * The one lookup of the records a consent journey carries (enrolments, biometric links, Pix payments): each is
 * found by id, by its consent page's token, or within its account by `identificador` or idempotency key.
 */
import type { Sql } from '../../platform/db/database.ts';

export type ConsentRecordKey =
  | { id: number }
  | { consentToken: string }
  | { accountId: number; identificador: string }
  | { accountId: number; idempotencyKey: string };

/** `table` and `columns` are the caller's constants, never input. `lock` takes the row `for update`. */
export async function findConsentRecord<Row>(
  sql: Sql,
  table: string,
  columns: string,
  by: ConsentRecordKey,
  lock: boolean,
): Promise<Row | undefined> {
  const [where, params] =
    'id' in by
      ? ['id = $1', [by.id]]
      : 'consentToken' in by
        ? ['consent_token = $1', [by.consentToken]]
        : 'identificador' in by
          ? ['account_id = $1 and identificador = $2', [by.accountId, by.identificador]]
          : ['account_id = $1 and idempotency_key = $2', [by.accountId, by.idempotencyKey]];
  const { rows } = await sql.query<Row>(
    `select ${columns} from ${table} where ${where}${lock ? ' for update' : ''}`,
    params,
  );
  return rows[0];
}
