/**
 * What `POST /sandbox/reset` removes, table by table, and what it keeps and why. Every table of the schema is
 * named in one of the two lists (test/sandbox/reset.test.ts checks it against the database), so a new table
 * is a decision, not a leftover.
 *
 * An account's own rows go: what it created, received, sent, registered and configured after its creation.
 * Rows of other accounts stay, even where they name this one (another account's Pix to it, a split
 * configuration of another account with it as a beneficiary): nothing one tenant does changes another's data.
 * The journal is never edited: a reset posts one entry that takes every balance back to zero (reset.ts).
 */
import type { Sql } from '../platform/db/database.ts';
import { ACCOUNT_JOBS } from '../platform/outbox/jobs.ts';

/** `$1` is the account id; `$2` its creation instant. In an order that no foreign key refuses. */
const REMOVED: readonly { table: string; where: string }[] = [
  // Work after the response: its jobs and their delivery records, before what they are about.
  { table: 'webhook_attempts', where: 'account_id = $1' },
  // A pixd listen stream outlives a reset, but the registrations it would put back are gone with the reset.
  { table: 'listen_sessions', where: 'account_id = $1' },
  ACCOUNT_JOBS,
  { table: 'report_chunks', where: 'report_id in (select id from reports where account_id = $1)' },
  { table: 'reports', where: 'account_id = $1' },
  // CNAB statements: files, schedules and the SFTP key.
  { table: 'statement_files', where: 'account_id = $1' },
  { table: 'statement_schedules', where: 'account_id = $1' },
  { table: 'statement_sftp_keys', where: 'account_id = $1' },
  { table: 'pix_webhooks', where: 'account_id = $1' },
  { table: 'account_webhooks', where: 'account_id = $1' },
  { table: 'opening_webhooks', where: 'account_id = $1' },
  // The SPI messages about it (before the Pix, sends and refunds they name).
  { table: 'spi_outbound', where: 'account_id = $1' },
  { table: 'spi_inbound', where: 'account_id = $1' },
  // Received Pix and what hangs on them.
  { table: 'split_refund_shares', where: 'refund_id in (select id from refunds where account_id = $1)' },
  { table: 'refunds', where: 'account_id = $1' },
  { table: 'infractions', where: 'account_id = $1' },
  {
    table: 'split_distribution_shares',
    where:
      'distribution_id in (select d.id from split_distributions d join received_pix p on p.id = d.received_pix_id where p.account_id = $1)',
  },
  { table: 'split_distributions', where: 'received_pix_id in (select id from received_pix where account_id = $1)' },
  { table: 'pix_confirmations', where: 'account_id = $1' },
  { table: 'received_pix', where: 'account_id = $1' },
  // A boleto names its Pix charge (cobv): it goes first.
  { table: 'billing_boletos', where: 'account_id = $1' },
  // Charges, their batches and locations, and the split configurations they link to.
  { table: 'split_links', where: 'charge_id in (select id from charges where account_id = $1)' },
  { table: 'cobv_batch_items', where: 'account_id = $1' },
  { table: 'charge_revisions', where: 'charge_id in (select id from charges where account_id = $1)' },
  { table: 'charges', where: 'account_id = $1' },
  { table: 'cobv_batches', where: 'account_id = $1' },
  { table: 'locations', where: 'account_id = $1' },
  { table: 'split_config_shares', where: 'split_config_id in (select id from split_configs where account_id = $1)' },
  { table: 'split_config_revisions', where: 'split_config_id in (select id from split_configs where account_id = $1)' },
  { table: 'split_configs', where: 'account_id = $1' },
  // Automatic Pix.
  { table: 'recurring_charges', where: 'account_id = $1' },
  { table: 'recurrence_requests', where: 'account_id = $1' },
  { table: 'recurrences', where: 'account_id = $1' },
  { table: 'recurrence_locations', where: 'account_id = $1' },
  // Money out.
  { table: 'sent_pix', where: 'account_id = $1' },
  { table: 'pix_schedules', where: 'account_id = $1' },
  // The directory's key-lookup buckets: full again.
  { table: 'key_lookup_buckets', where: 'account_id = $1' },
  { table: 'bill_payments', where: 'account_id = $1' },
  { table: 'bill_payment_webhooks', where: 'account_id = $1' },
  // Directory operations of a participant.
  { table: 'dict_refunds', where: 'account_id = $1' },
  { table: 'dict_entries', where: 'account_id = $1' },
  // Open Finance.
  { table: 'of_pix_parcels', where: 'account_id = $1' },
  { table: 'of_pix_payments', where: 'account_id = $1' },
  { table: 'of_links', where: 'account_id = $1' },
  { table: 'of_payments', where: 'account_id = $1' },
  { table: 'of_enrolments', where: 'account_id = $1' },
  { table: 'of_config', where: 'account_id = $1' },
  // Billing: e-mails, boletos (before their Pix charges and charges), carnês (parcels before the carnê row).
  { table: 'mail_outbox', where: 'account_id = $1' },
  // Card billing: links, history (it names subscriptions), subscriptions and plans before the charges they point at.
  { table: 'billing_history', where: 'charge_id in (select id from billing_charges where account_id = $1)' },
  { table: 'billing_links', where: 'charge_id in (select id from billing_charges where account_id = $1)' },
  {
    table: 'billing_subscription_charges',
    where: 'subscription_id in (select id from billing_subscriptions where account_id = $1)',
  },
  {
    table: 'billing_subscription_history',
    where: 'subscription_id in (select id from billing_subscriptions where account_id = $1)',
  },
  { table: 'billing_subscriptions', where: 'account_id = $1' },
  { table: 'billing_plans', where: 'account_id = $1' },
  { table: 'billing_refunds', where: 'charge_id in (select id from billing_charges where account_id = $1)' },
  { table: 'billing_charges', where: 'account_id = $1' },
  { table: 'billing_payment_tokens', where: 'account_id = $1' },
  { table: 'billing_metadata_updates', where: 'account_id = $1' },
  // Settings and keys made after the account: its settings go back to the defaults (no row).
  { table: 'account_settings', where: 'account_id = $1' },
  { table: 'pix_key_settings', where: 'account_id = $1' },
  { table: 'pix_keys', where: 'account_id = $1 and created_at > $2' },
  { table: 'sandbox_clocks', where: 'account_id = $1' },
  // Faults on demand (docs/faults.md): a reset account has none.
  { table: 'sandbox_faults', where: 'account_id = $1' },
];

/** Tables a reset leaves alone, each with the reason. */
export const KEPT_TABLES: Readonly<Record<string, string>> = {
  accounts: 'the account itself',
  simplified_accounts: 'the accounts it opened are accounts of their own, which a reset of the opener leaves alone',
  applications: 'its credentials: the integrator keeps calling with the same client id and certificate',
  journal_entries: 'the journal is append-only; the reset posts its own entry',
  journal_lines: 'the journal is append-only; the reset posts its own entry',
  ledger_accounts: "the account's ledger accounts stay, their totals brought to zero by the reset's entry",
  console_users: "the operator's console users, not the account's",
  console_user_accounts: "which accounts an operator's console user may see",
  console_session_revocations: 'console sessions, the operator side',
  blocked_documents: 'sandbox-wide blocked payer documents',
  of_participants: 'the Open Finance directory, shared by every account',
  service_state: "the service's identity and keys",
  schema_migrations: 'the schema',
};

export const RESET_TABLES: readonly string[] = REMOVED.map((step) => step.table);

/** A function takes at most 100 arguments: the counts are built 40 tables at a time and merged. */
const COUNTS_PER_OBJECT = 40;

function countsObject(tables: string[]): string {
  const objects: string[] = [];
  for (let i = 0; i < tables.length; i += COUNTS_PER_OBJECT) {
    const pairs = tables
      .slice(i, i + COUNTS_PER_OBJECT)
      .map((table) => `'${table}', (select count(*) from "${table}")`);
    objects.push(`jsonb_build_object(${pairs.join(', ')})`);
  }
  return objects.join(' || ');
}

/**
 * One statement: every delete a data-modifying CTE, so the foreign keys are checked once at its end (parents
 * and children go together) and a reset costs one round trip whatever the number of tables. Every CTE sees
 * the rows as they were before the statement, which is what the child tables' subqueries need.
 */
const REMOVE_STATEMENT = [
  `with ${REMOVED.map(({ table, where }) => `"${table}" as (delete from ${table} where ${where} returning 1)`).join(',\n')},`,
  `restored_keys as (update pix_keys set removed_at = null where account_id = $1 and removed_at is not null and created_at <= $2 returning 1)`,
  `select ${countsObject(REMOVED.map(({ table }) => table))} as removed`,
].join('\n');

/** Deletes the account's rows; the number of rows removed per table (only those that held some). */
export async function removeAccountRows(sql: Sql, accountId: number, createdAt: Date): Promise<Record<string, number>> {
  const { rows } = await sql.query<{ removed: Record<string, number> }>(REMOVE_STATEMENT, [accountId, createdAt]);
  return Object.fromEntries(Object.entries(rows[0].removed).filter(([, count]) => Number(count) > 0));
}

export async function accountCreation(sql: Sql, accountId: number): Promise<{ createdAt: Date; conta: string }> {
  const { rows } = await sql.query<{ created_at: Date; conta: string }>(
    'select created_at, conta from accounts where id = $1',
    [accountId],
  );
  return { createdAt: new Date(rows[0].created_at), conta: rows[0].conta };
}

/** The account's non-zero posted balances (available, sending, blocked). */
export async function customerBalances(sql: Sql, accountId: number): Promise<{ code: string; cents: number }[]> {
  const { rows } = await sql.query<{ code: string; balance_cents: string | number }>(
    'select code, balance_cents from ledger_accounts where account_id = $1 and balance_cents <> 0 order by code',
    [accountId],
  );
  return rows.map((r) => ({ code: r.code, cents: Number(r.balance_cents) }));
}
