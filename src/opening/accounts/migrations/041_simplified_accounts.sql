-- Simplified accounts (/v1/conta-simplificada): an account opened through the API by another account (the
-- integrator, `opener_account_id`). The opened account and its application are ordinary rows of accounts and
-- applications; this row says who opened it and whether its client secret was already answered (it is
-- answered once and never stored: docs/simplified-accounts.md).
create table simplified_accounts (
  id text primary key,
  opener_account_id bigint not null references accounts (id),
  account_id bigint not null unique references accounts (id),
  client_id text not null references applications (client_id),
  secret_answered_at timestamptz,
  created_at timestamptz not null
);
create index simplified_accounts_opener on simplified_accounts (opener_account_id, created_at);
