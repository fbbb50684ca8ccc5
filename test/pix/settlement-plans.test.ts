/**
 * A payment's cost does not grow with the charges table: its statements find the charge by key even when
 * their plans were made while the table was nearly empty and the table has had no statistics since (a new
 * database; this machine's PostgreSQL runs without autovacuum). Before the group-commit connections priced
 * sequential scans out and migration 026 left the unique (account_id, txid) the only index for a lookup by
 * txid, those plans read the whole table, or the whole account's charges, for every payment.
 *
 * Counted, not timed: PostgreSQL's own per-table counters (`pg_stat_user_tables`) say how many rows of
 * `charges` the payments read, by sequential scan or through an index, and how many index scans they made.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * Payments before the table grows: PostgreSQL plans a prepared statement afresh for its first five runs, then
 * keeps a generic plan if that looks no dearer; these are enough for the plans to be kept ones.
 */
const PLANNED_AT = 10;
/** Charges added behind the plans' back: far more than any batch of payments reads by key. */
const GROWN_BY = 5_000;
/** Payments made after the table grew. */
const PAYMENTS = 20;
/** Index scans of `charges` each payment on the settlement path makes at least: its read and its write. */
const INDEX_SCANS_PER_PAYMENT = 2;
/** Backends publish their table counters when idle, at most 10 s late (PostgreSQL's PGSTAT_IDLE_INTERVAL). */
const COUNTERS_PUBLISHED_MS = 30_000;

describe('settlement plans', () => {
  let svc: TestService;
  let party: Party;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => party.http.request(method, path, { token, body });
  const createAndPay = async (valor: string) => {
    const created = await call('POST', '/v2/cob', cobBody(party.chaves[0], valor));
    assert.equal(created.status, 201, created.text);
    const paid = await call('POST', '/sandbox/pix/pay', { txid: created.body.txid });
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.valor, valor);
  };
  const chargeScans = async () => {
    const { rows } = await svc.service.ctx.db.query<{ rows_read: number; idx_scan: number }>(
      `select (seq_tup_read + coalesce(idx_tup_fetch, 0))::bigint as rows_read, coalesce(idx_scan, 0)::bigint as idx_scan
         from pg_stat_user_tables where relname = 'charges'`,
    );
    return rows[0];
  };

  before(async () => {
    svc = await startTestService();
    party = await svc.newParty();
    token = await party.token();
  });
  after(() => svc.close());

  it('pays by key lookups after the table grew past the plans made when it was small', async () => {
    // The first payment creates the receiver's ledger account (locked path); the next ones take the settlement
    // path, so its statements are planned now, with `charges` a few rows long. 12.34 and up: above the
    // sandbox auto-payer's limit, so only these requests pay.
    for (let n = 0; n < PLANNED_AT; n++) await createAndPay('12.34');
    const db = svc.service.ctx.db;
    await db.query(
      `insert into charges (account_id, txid, kind, revisao, status, created_at, updated_at, amount_cents, chave, body)
       select $1, 'grown' || lpad(g::text, 20, '0'), 'cob', 0, 'CONCLUIDA', now(), now(), 1234, $2, '{}'
         from generate_series(1, $3::int) g`,
      [party.accountId, party.chaves[0], GROWN_BY],
    );
    const before = await chargeScans();

    for (let n = 0; n < PAYMENTS; n++) await createAndPay(`${13 + n}.00`);

    // Either the payments' lookups show up as index scans, or as reads of the whole table (or of the whole
    // account's charges, through an index that does not lead to the charge).
    const after = await waitFor(
      async () => {
        const now = await chargeScans();
        const indexScans = now.idx_scan - before.idx_scan;
        const rowsRead = now.rows_read - before.rows_read;
        return (indexScans >= PAYMENTS * INDEX_SCANS_PER_PAYMENT || rowsRead >= GROWN_BY) && now;
      },
      'the payments counted in pg_stat_user_tables',
      COUNTERS_PUBLISHED_MS,
    );
    const rowsRead = after.rows_read - before.rows_read;
    assert.ok(
      rowsRead < GROWN_BY,
      `${PAYMENTS} payments read ${rowsRead} rows of charges (the table holds ${GROWN_BY}+)`,
    );
    await assertLedgerBalanced(db);
    await assertBalanceMatchesLines(db, party.accountId, (await call('GET', '/v2/gn/saldo/')).body.saldo);
  });
});
