/** Storage of the participant-side directory: entries, their keys, special refund requests (migration 020). */
import type { Sql } from '../../platform/db/database.ts';
import type { DictEntryView, RefundView } from './schemas.ts';

/** The participant's ISPB of an account, or null when it is not a participant. */
export async function participantIspb(sql: Sql, accountId: number): Promise<string | null> {
  const { rows } = await sql.query<{ participant_ispb: string | null }>(
    'select participant_ispb from accounts where id = $1',
    [accountId],
  );
  return rows[0]?.participant_ispb ?? null;
}

export interface StoredEntry {
  request_sha256: string;
  entry: DictEntryView;
}

export async function entryByRequestId(sql: Sql, requestId: string): Promise<StoredEntry | undefined> {
  const { rows } = await sql.query<StoredEntry>(
    'select request_sha256, entry from dict_entries where request_id = $1',
    [requestId],
  );
  return rows[0];
}

/**
 * Serialises the directory's operations on one thing until the transaction ends: the creations of one owner's
 * keys in one account (counting them and inserting one cannot race past the limit), or the refund requests of
 * one transaction (their sum stays within what is refundable). Other owners and transactions go on in parallel.
 */
export async function lockDictScope(sql: Sql, scope: string): Promise<void> {
  // Two-int form: a key space of its own, apart from the single-bigint locks (migrations).
  await sql.query(`select pg_advisory_xact_lock(${DICT_LOCK_CLASS}, hashtext($1))`, [scope]);
}

const DICT_LOCK_CLASS = 0x64696374; // "dict"

export async function countOwnerKeys(
  sql: Sql,
  owner: { participant: string; branch: string; accountNumber: string; taxId: string },
): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from dict_entries e join pix_keys k on k.chave = e.key
      where e.participant = $1 and e.branch = $2 and e.account_number = $3 and e.owner_tax_id = $4
        and k.removed_at is null`,
    [owner.participant, owner.branch, owner.accountNumber, owner.taxId],
  );
  return rows[0].n;
}

/** Inserts the key as the participant's, needing confirmation of incoming Pix. False: the key exists already. */
export async function insertEntryKey(
  sql: Sql,
  key: { chave: string; accountId: number; tipo: string },
  now: Date,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `insert into pix_keys (chave, account_id, tipo, created_at, confirm_incoming) values ($1, $2, $3, $4, true)
     on conflict (chave) do nothing`,
    [key.chave, key.accountId, key.tipo, now],
  );
  return rowCount === 1;
}

/** Who holds an existing key: an entry's owner and participant, or (a platform key) the account's holder at pixd. */
export interface KeyHolder {
  owner_tax_id: string;
  participant: string | null;
  removed: boolean;
}

export async function keyHolder(sql: Sql, chave: string): Promise<KeyHolder | undefined> {
  const { rows } = await sql.query<KeyHolder>(
    `select coalesce(e.owner_tax_id, a.documento) as owner_tax_id, e.participant, k.removed_at is not null as removed
       from pix_keys k join accounts a on a.id = k.account_id left join dict_entries e on e.key = k.chave
      where k.chave = $1`,
    [chave],
  );
  return rows[0];
}

export async function insertEntry(
  sql: Sql,
  row: {
    key: string;
    accountId: number;
    requestId: string;
    requestSha256: string;
    keyType: string;
    ownerTaxId: string;
    ownerType: string;
    participant: string;
    branch: string;
    accountNumber: string;
    entry: DictEntryView;
  },
  now: Date,
): Promise<void> {
  await sql.query(
    `insert into dict_entries (key, account_id, request_id, request_sha256, key_type, owner_tax_id, owner_type,
       participant, branch, account_number, entry, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      row.key,
      row.accountId,
      row.requestId,
      row.requestSha256,
      row.keyType,
      row.ownerTaxId,
      row.ownerType,
      row.participant,
      row.branch,
      row.accountNumber,
      JSON.stringify(row.entry),
      now,
    ],
  );
}

export interface RefundRow {
  id: string;
  account_id: number;
  transaction_id: string;
  direction: 'paid' | 'received';
  refund_amount_cents: number;
  refund_details: string;
  refund_reason: string;
  requesting_participant: string;
  contested_participant: string;
  status: RefundView['status'];
  result: 'totally_accepted' | 'partially_accepted' | 'rejected' | null;
  refunded_amount_cents: number | null;
  created_at: Date;
  last_modified: Date;
}

const REFUND_COLUMNS = `id, account_id, transaction_id, direction, refund_amount_cents, refund_details, refund_reason,
  requesting_participant, contested_participant, status, result, refunded_amount_cents, created_at, last_modified`;

export async function insertDictRefund(sql: Sql, row: RefundRow): Promise<void> {
  await sql.query(
    `insert into dict_refunds (${REFUND_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      row.id,
      row.account_id,
      row.transaction_id,
      row.direction,
      row.refund_amount_cents,
      row.refund_details,
      row.refund_reason,
      row.requesting_participant,
      row.contested_participant,
      row.status,
      row.result,
      row.refunded_amount_cents,
      row.created_at,
      row.last_modified,
    ],
  );
}

export async function findDictRefund(
  sql: Sql,
  accountId: number,
  id: string,
  lock: 'for update' | '' = '',
): Promise<RefundRow | undefined> {
  const { rows } = await sql.query<RefundRow>(
    `select ${REFUND_COLUMNS} from dict_refunds where account_id = $1 and id = $2 ${lock}`,
    [accountId, id],
  );
  return rows[0];
}

/** What earlier requests on a transaction take of it: open ones their asked amount, closed ones what they refunded. */
export async function claimedByRefundRequests(sql: Sql, transactionId: string): Promise<number> {
  const { rows } = await sql.query<{ cents: number }>(
    `select coalesce(sum(case when status = 'open' then refund_amount_cents else coalesce(refunded_amount_cents, 0) end), 0)::bigint as cents
       from dict_refunds where transaction_id = $1`,
    [transactionId],
  );
  return Number(rows[0].cents);
}

export async function closeDictRefund(
  sql: Sql,
  id: string,
  result: NonNullable<RefundRow['result']>,
  refundedCents: number,
  now: Date,
): Promise<RefundRow> {
  const { rows } = await sql.query<RefundRow>(
    `update dict_refunds set status = 'closed', result = $2, refunded_amount_cents = $3, last_modified = $4
      where id = $1 returning ${REFUND_COLUMNS}`,
    [id, result, refundedCents, now],
  );
  return rows[0];
}

/** Pix the participant's account received (and its payer's institution) or sent (and its receiver), by end-to-end id. */
export async function receivedByAccount(
  sql: Sql,
  accountId: number,
  e2e: string,
): Promise<{ id: number; amount_cents: number } | undefined> {
  const { rows } = await sql.query<{ id: number; amount_cents: number }>(
    'select id, amount_cents from received_pix where account_id = $1 and end_to_end_id = $2',
    [accountId, e2e],
  );
  return rows[0];
}

export interface SentForRefund {
  amount_cents: number;
  status: string;
  destination: 'pixd' | 'externa';
  receiver_account_id: number | null;
  receiver_ispb: string | null;
  received_pix_id: number | null;
}

export async function sentByAccount(sql: Sql, accountId: number, e2e: string): Promise<SentForRefund | undefined> {
  const { rows } = await sql.query<SentForRefund>(
    `select s.amount_cents, s.status, s.destination, s.receiver_account_id, a.participant_ispb as receiver_ispb,
            r.id as received_pix_id
       from sent_pix s left join accounts a on a.id = s.receiver_account_id
       left join received_pix r on r.end_to_end_id = s.end_to_end_id
      where s.account_id = $1 and s.end_to_end_id = $2`,
    [accountId, e2e],
  );
  return rows[0];
}
