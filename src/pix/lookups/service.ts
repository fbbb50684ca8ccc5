/**
 * The directory's token buckets for key lookups (docs/sending.md, "Key lookups"), by the Central Bank's DICT
 * rules (LIMITS.keyLookup…): a send by key looks the key up, which takes tokens from the bucket of the key's
 * family, or is refused when the bucket is empty; a payment sent gives a token back.
 */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { accountHolder } from '../send/store.ts';
import { lockBucket, readBuckets, saveBucket, type BucketName, type BucketRow } from './store.ts';

/** The key families of each bucket, as the provider names them. */
export const BUCKET_KEY_TYPES = { A: ['cpf', 'cnpj', 'evp'], B: ['telefone', 'email'] } as const;

/** Phone numbers (+…) and e-mail addresses are bucket B; documents and random keys, bucket A. */
export const bucketOf = (chave: string): BucketName => (chave.startsWith('+') || chave.includes('@') ? 'B' : 'A');

async function capacityOf(sql: Sql, accountId: number): Promise<number> {
  const { documento } = await accountHolder(sql, accountId);
  return documento.length === 11 ? LIMITS.keyLookupBucketPersonTokens : LIMITS.keyLookupBucketCompanyTokens;
}

/** The tokens at `now`: what the row held, plus the refill since, up to the capacity. */
function refilled(row: BucketRow | undefined, capacity: number, now: Date): BucketRow {
  if (!row) return { tokens: capacity, refilled_at: now };
  const periods = Math.max(0, now.getTime() - row.refilled_at.getTime()) / (LIMITS.keyLookupRefillPeriodSeconds * 1000);
  return { tokens: Math.min(capacity, row.tokens + periods * LIMITS.keyLookupRefillTokens), refilled_at: now };
}

/** Whether the lookup may run: an empty bucket (less than one token) refuses it and takes nothing. */
export async function takeLookupTokens(
  sql: Sql,
  accountId: number,
  chave: string,
  found: boolean,
  now: Date,
): Promise<boolean> {
  return sql.atomic(async (tx) => {
    const bucket = bucketOf(chave);
    const row = refilled(await lockBucket(tx, accountId, bucket), await capacityOf(tx, accountId), now);
    if (row.tokens < 1) return false;
    const cost = found ? LIMITS.keyLookupFoundCost : LIMITS.keyLookupNotFoundCost;
    await saveBucket(tx, accountId, bucket, { ...row, tokens: Math.max(0, row.tokens - cost) });
    return true;
  });
}

/** A payment order sent to a key looked up gives its bucket one token back. */
export async function returnLookupToken(sql: Sql, accountId: number, chave: string, now: Date): Promise<void> {
  const bucket = bucketOf(chave);
  const capacity = await capacityOf(sql, accountId);
  const row = refilled(await lockBucket(sql, accountId, bucket), capacity, now);
  await saveBucket(sql, accountId, bucket, { ...row, tokens: Math.min(capacity, row.tokens + 1) });
}

/** `GET /v2/gn/chaves/balde`. */
export async function readLookupBuckets(sql: Sql, accountId: number, now: Date) {
  const [rows, capacity] = await Promise.all([readBuckets(sql, accountId), capacityOf(sql, accountId)]);
  const view = (bucket: BucketName) => ({
    tiposChave: [...BUCKET_KEY_TYPES[bucket]],
    capacidade: capacity,
    fichasDisponiveis: Math.floor(refilled(rows.get(bucket), capacity, now).tokens),
    taxaDeReposicaoFichas: LIMITS.keyLookupRefillTokens,
    periodoReposicaoEmSegundos: LIMITS.keyLookupRefillPeriodSeconds,
  });
  return { baldeA: view('A'), baldeB: view('B') };
}
