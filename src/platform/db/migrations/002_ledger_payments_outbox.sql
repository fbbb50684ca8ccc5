-- Double-entry ledger. A journal entry moves money between ledger accounts; its lines sum to zero.
-- Customer balances are the sum of their lines (credits to a customer are positive).
create table ledger_accounts (
  id bigserial primary key,
  code text not null unique,
  account_id bigint references accounts (id),
  created_at timestamptz not null default now()
);

create table journal_entries (
  id bigserial primary key,
  kind text not null,
  reference text not null,
  account_id bigint references accounts (id),
  created_at timestamptz not null
);
create index journal_entries_account_created on journal_entries (account_id, created_at);

create table journal_lines (
  id bigserial primary key,
  entry_id bigint not null references journal_entries (id),
  ledger_account_id bigint not null references ledger_accounts (id),
  amount_cents bigint not null check (amount_cents <> 0)
);
create index journal_lines_entry on journal_lines (entry_id);
create index journal_lines_ledger_account on journal_lines (ledger_account_id);

-- Every Pix received, whatever its path (sandbox, participant confirmation).
create table received_pix (
  id bigserial primary key,
  end_to_end_id text not null unique,
  account_id bigint not null references accounts (id),
  charge_id bigint references charges (id),
  txid text,
  chave text,
  amount_cents bigint not null check (amount_cents > 0),
  received_at timestamptz not null,
  pagador_cpf text,
  pagador_cnpj text,
  pagador_nome text not null,
  info_pagador text,
  -- Amount components for due charges (juros, multa, abatimento, desconto), as cents.
  components jsonb,
  origin text not null
);
-- A charge is paid at most once: the database refuses a second received Pix for it.
create unique index received_pix_one_per_charge on received_pix (charge_id) where charge_id is not null;
create index received_pix_account_received on received_pix (account_id, received_at, id);

create table refunds (
  id bigserial primary key,
  received_pix_id bigint not null references received_pix (id),
  account_id bigint not null references accounts (id),
  refund_id text not null,
  rtr_id text not null unique,
  amount_cents bigint not null check (amount_cents > 0),
  status text not null check (status in ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')),
  natureza text not null,
  descricao text,
  requested_at timestamptz not null,
  settled_at timestamptz,
  motivo text,
  unique (received_pix_id, refund_id)
);

-- Durable work written in the same transaction as the state change that caused it.
create table outbox (
  id bigserial primary key,
  topic text not null,
  -- Rows with the same ordering key are handled strictly in id order (events of one charge).
  ordering_key text,
  payload jsonb not null,
  available_at timestamptz not null,
  attempts integer not null default 0,
  locked_until timestamptz,
  locked_by text,
  done_at timestamptz,
  last_error text,
  created_at timestamptz not null
);
create index outbox_pending on outbox (available_at, id) where done_at is null;
create index outbox_ordering_pending on outbox (ordering_key, id) where done_at is null;
