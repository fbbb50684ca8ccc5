import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The list and its files; run-migrations.ts applies them (this module imports no database code: the embedded
// cluster's template key is a hash of the list, and the database opens that template).

/** Taken by every node that starts: two nodes starting together apply each migration once. */
export const MIGRATION_LOCK_ID = 0x70697864; // "pixd"

/**
 * Every migration, in the order it runs, by its path under src/: a feature's tables are written by its own
 * folder's `migrations/`; the ones that span features, from before that rule, stay in platform/db/migrations.
 * The file name gives the version and the name `schema_migrations` records (the applied set is read by
 * version), so a file may move between folders but is never renamed, renumbered or edited once applied.
 * A new migration takes the next number and goes at the end of this list.
 */
export const MIGRATION_FILES = [
  'platform/db/migrations/001_platform.sql',
  'platform/db/migrations/002_ledger_payments_outbox.sql',
  'pix/webhook/migrations/003_webhooks.sql',
  'pix/settings/migrations/004_keys_settings.sql',
  'pix/split/migrations/005_split.sql',
  'pix/lotecobv/migrations/006_batches.sql',
  'platform/db/migrations/007_reports_schedules.sql',
  'billing/migrations/008_billing.sql',
  'pix/schedules/migrations/009_schedule_sender_key.sql',
  'pix/charges/migrations/010_superseded_revisions.sql',
  'pix/charges/migrations/011_charge_account_foreign_keys.sql',
  'pix/charges/migrations/012_charge_location_foreign_key.sql',
  'platform/ledger/migrations/013_ledger_posted_totals.sql',
  'platform/db/migrations/014_sandbox_account_clocks.sql',
  'pix/send/migrations/015_sent_pix_infractions.sql',
  'pix/rec/migrations/016_recurrences.sql',
  'pix/cobr/migrations/017_recurring_charges.sql',
  'pix/solicrec/migrations/018_recurrence_requests.sql',
  'pix/locrec/migrations/019_recurrence_locations.sql',
  'pix/dict/migrations/020_participants.sql',
  'pix/rec/migrations/021_recurrences_journey_txid.sql',
  'platform/db/migrations/022_outbox_topic_pending.sql',
  'openfinance/migrations/023_open_finance.sql',
  'platform/db/migrations/024_attempt_bodies_console_sessions.sql',
  'pix/received/migrations/025_received_pix_json.sql',
  'pix/charges/migrations/026_charge_lookup_by_txid.sql',
  'accounts/migrations/027_account_address.sql',
  'spi/migrations/028_spi_messages.sql',
  'sandbox/migrations/029_sandbox_faults.sql',
  'spi/migrations/030_spi_inbound_returns.sql',
  'openfinance/migrations/031_open_finance_pix.sql',
  'sandbox/migrations/032_listen_sessions.sql',
  'spi/migrations/033_spi_outbound_status_reports.sql',
  'pix/lookups/migrations/034_key_lookup_buckets.sql',
  'pix/split/migrations/035_split_refund_shares.sql',
  'billing/migrations/036_boletos_carnets.sql',
  'billing/bills/migrations/037_bill_payments.sql',
  'billing/statements/migrations/038_cnab_statements.sql',
  'billing/migrations/039_subscriptions_links.sql',
  'billing/migrations/040_mail_smtp.sql',
  'opening/accounts/migrations/041_simplified_accounts.sql',
  'billing/migrations/042_subscription_events.sql',
  'opening/accounts/migrations/043_simplified_account_holders.sql',
  'billing/migrations/044_renewal_days.sql',
  'openfinance/migrations/045_of_payer_asked.sql',
] as const;

const SRC_DIR = fileURLToPath(new URL('../../', import.meta.url));
const FILE_NAME = /(?:^|\/)(\d{3})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(): Migration[] {
  return MIGRATION_FILES.map((file, index) => {
    const match = FILE_NAME.exec(file);
    const version = Number(match?.[1]);
    // The list is the order: version n is the n-th entry, so nothing is skipped or applied out of turn.
    if (!match || version !== index + 1) throw new Error(`migration list: ${file} is not version ${index + 1}`);
    return { version, name: match[2], sql: fs.readFileSync(path.join(SRC_DIR, file), 'utf8') };
  });
}
