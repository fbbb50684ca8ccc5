/** Storage of the key-lookup buckets (migration 034). */
import type { Sql } from '../../platform/db/database.ts';

export type BucketName = 'A' | 'B';

export interface BucketRow {
  tokens: number;
  refilled_at: Date;
}

/** The bucket's row, locked for the rest of the transaction; undefined: never used (full). */
export async function lockBucket(sql: Sql, accountId: number, bucket: BucketName): Promise<BucketRow | undefined> {
  const { rows } = await sql.query<BucketRow>(
    'select tokens, refilled_at from key_lookup_buckets where account_id = $1 and bucket = $2 for update',
    [accountId, bucket],
  );
  return rows[0] && { tokens: Number(rows[0].tokens), refilled_at: new Date(rows[0].refilled_at) };
}

export async function readBuckets(sql: Sql, accountId: number): Promise<Map<BucketName, BucketRow>> {
  const { rows } = await sql.query<BucketRow & { bucket: BucketName }>(
    'select bucket, tokens, refilled_at from key_lookup_buckets where account_id = $1',
    [accountId],
  );
  return new Map(rows.map((r) => [r.bucket, { tokens: Number(r.tokens), refilled_at: new Date(r.refilled_at) }]));
}

export async function saveBucket(sql: Sql, accountId: number, bucket: BucketName, row: BucketRow): Promise<void> {
  await sql.query(
    `insert into key_lookup_buckets (account_id, bucket, tokens, refilled_at) values ($1, $2, $3, $4)
     on conflict (account_id, bucket) do update set tokens = excluded.tokens, refilled_at = excluded.refilled_at`,
    [accountId, bucket, row.tokens, row.refilled_at],
  );
}
