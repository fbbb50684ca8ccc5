-- Reconciliation reports and scheduled Pix (docs/reports-schedules.md).

-- A report request. (account, day, selected record types) identifies it: a second request with the same
-- parameters answers the first one instead of generating the file again.
create table reports (
  id bigserial primary key,
  public_id text not null unique,
  account_id bigint not null references accounts (id),
  data_movimento date not null,
  -- The selected tipoRegistros keys, sorted and comma-joined.
  tipos text not null,
  status text not null check (status in ('AGUARDANDO_PROCESSAMENTO', 'EM_PROCESSAMENTO', 'CONCLUIDO')),
  requested_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz,
  -- Each generation attempt writes its chunks under its own number; only the attempt that finished is
  -- served, so a retried or duplicated job can never mix two attempts in one file.
  generation integer not null default 0,
  line_count bigint,
  size_bytes bigint,
  chunk_count integer,
  unique (account_id, data_movimento, tipos)
);

-- The file, in order, in chunks of about LIMITS.reportChunkBytes: written while streaming over the
-- journal and read back one chunk at a time, so neither side holds the whole file. In the database (not
-- a node's disk) so any node can serve a file another node generated.
create table report_chunks (
  report_id bigint not null references reports (id),
  generation integer not null,
  seq integer not null,
  data text not null,
  primary key (report_id, generation, seq)
);

-- Reports read one ledger account's lines of one day in journal order (keyset on entry_id, id). This
-- replaces the single-column index of 002: balances (sum by ledger account) use the new one as well,
-- index-only thanks to the included amount.
drop index journal_lines_ledger_account;
create index journal_lines_ledger_account_entry on journal_lines (ledger_account_id, entry_id, id) include (amount_cents);
-- The range of entry ids written during a day, whichever accounts they concern.
create index journal_entries_created on journal_entries (created_at, id);

-- Pix payments sent from an account at a scheduled instant. Created through the sandbox or the operator
-- API (the interface only reads them); a scheduler on the service clock moves them through
-- scheduled -> waiting -> finished | rejected, debiting the ledger when the payment is sent.
create table pix_schedules (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  txid text,
  end_to_end_id text not null unique,
  -- The receiving end user's account: the Pix key, or <ispb>/<agencia>/<conta> for bank data.
  end_user_account text not null,
  destination text not null check (destination in ('chave', 'dados_bancarios')),
  receiver_name text not null,
  amount_cents bigint not null check (amount_cents > 0),
  scheduling_date timestamptz not null,
  status text not null check (status in ('scheduled', 'waiting', 'finished', 'rejected')),
  error_code text,
  error_description text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- GET /v1/pix/schedules/:txid reads by txid, so a txid names at most one schedule of an account.
create unique index pix_schedules_account_txid on pix_schedules (account_id, txid) where txid is not null;
create index pix_schedules_account_date on pix_schedules (account_id, scheduling_date, id);
