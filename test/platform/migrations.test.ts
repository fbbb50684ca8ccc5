// suite: database-independent
/**
 * The migration list that existing databases were migrated by: each version keeps its name and its content
 * (the applied set in `schema_migrations` is read by version, so a moved file must still be the same
 * migration), the list runs 1..n in order, and no `.sql` file under src/ is left out of it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATION_FILES, listMigrations } from '../../src/platform/db/migrate.ts';

/** [version, name, sha256 prefix of the content] as applied by existing databases; append, never edit. */
const APPLIED: [number, string, string][] = [
  [1, 'platform', 'eaa418bd4f60cce4'],
  [2, 'ledger_payments_outbox', '0a97bcb0c07593ca'],
  [3, 'webhooks', '41f0be5452214ab4'],
  [4, 'keys_settings', '7b2b276929ab0b4e'],
  [5, 'split', '4c5236387a07cbbf'],
  [6, 'batches', '08e71859d815341e'],
  [7, 'reports_schedules', 'd628f0e2e397446c'],
  [8, 'billing', '839f9204ae1d2bd5'],
  [9, 'schedule_sender_key', '016b0b2250530928'],
  [10, 'superseded_revisions', 'e59094cb82f5cf19'],
  [11, 'charge_account_foreign_keys', '41f7eba1da31cad7'],
  [12, 'charge_location_foreign_key', 'ef6b9e79d25584ee'],
  [13, 'ledger_posted_totals', 'f1f8b07548025703'],
  [14, 'sandbox_account_clocks', 'd0f783016f6d5c2f'],
  [15, 'sent_pix_infractions', 'fbe91f0bd9334f6c'],
  [16, 'recurrences', '75539f5e7825a832'],
  [17, 'recurring_charges', '7e86fe351c0189fe'],
  [18, 'recurrence_requests', 'bcd5afa0c262c0fc'],
  [19, 'recurrence_locations', 'e2a8fb87fa22cf2c'],
  [20, 'participants', 'c623105701379ae1'],
  [21, 'recurrences_journey_txid', '98718330a334ca75'],
  [22, 'outbox_topic_pending', 'a5cf5e6c02930496'],
  [23, 'open_finance', '8017bb6bb6119cf0'],
  [24, 'attempt_bodies_console_sessions', 'b7006dd084309fd6'],
  [25, 'received_pix_json', '70754fc7cbc35741'],
  [26, 'charge_lookup_by_txid', 'dfa965ca85d75481'],
  [27, 'account_address', '9c64941f4024a1ec'],
  [28, 'spi_messages', '6c456cec6f578aa7'],
  [29, 'sandbox_faults', '172b19309f030e54'],
  [30, 'spi_inbound_returns', '25674e0fbb24731a'],
  [31, 'open_finance_pix', 'c80c8ed91e3f5a0f'],
  [32, 'listen_sessions', '67f63e69fe4a911e'],
  [33, 'spi_outbound_status_reports', 'f275809c9dc28143'],
  [34, 'key_lookup_buckets', '5a4eeadc1490b3f3'],
  [35, 'split_refund_shares', '71038d3480740cb4'],
  [36, 'boletos_carnets', 'd628b441f977919b'],
  [37, 'bill_payments', '536d87fddc7c2e93'],
  [38, 'cnab_statements', '205eba130a08d3ab'],
  [39, 'subscriptions_links', '3b94055fb4c00ee2'],
  [40, 'mail_smtp', '9400120277cca6c4'],
  [41, 'simplified_accounts', '6659b4427529eeb8'],
  [42, 'subscription_events', '4d640f0e39dadbb4'],
  [43, 'simplified_account_holders', '2e7ad71b31ad50dc'],
  [44, 'renewal_days', '490eb2f1de0a19c9'],
  [45, 'of_payer_asked', 'eff83691ce54dcc2'],
];

describe('migrations', () => {
  it('keep the version, name and content existing databases applied', () => {
    const listed = listMigrations().map((m) => [
      m.version,
      m.name,
      createHash('sha256').update(m.sql).digest('hex').slice(0, 16),
    ]);
    assert.deepEqual(listed.slice(0, APPLIED.length), APPLIED);
    assert.deepEqual(
      listed.map(([version]) => version),
      listed.map((_, i) => i + 1),
    );
  });

  it('list every .sql file under src/', () => {
    const src = path.resolve('src');
    const found = (fs.readdirSync(src, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.sql'))
      .map((file) => file.split(path.sep).join('/'))
      .sort();
    assert.deepEqual(found, [...MIGRATION_FILES].sort());
  });
});
