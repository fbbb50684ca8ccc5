-- CNAB 240 account statements (docs/statements.md): the files generated from the ledger, the schedules
-- (recorrências) that generate them on the account's clock, and the SFTP public key of each account.

-- One file per account and period. Its text is kept whole: a day's statement of an account is one CNAB 240
-- file, and both the HTTPS download and the SFTP server read it from here, so any node serves it.
create table statement_files (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  name text not null,
  -- Brasília days the file covers, inclusive.
  period_start date not null,
  period_end date not null,
  -- The file's sequence number among the account's files (NSA, header de arquivo positions 158 to 163).
  sequence integer not null,
  generated_at timestamptz not null,
  content text not null,
  size_bytes integer not null,
  unique (account_id, name),
  -- A period is generated once: two schedules of the same period share the file.
  unique (account_id, period_start, period_end)
);

create table statement_schedules (
  id bigserial primary key,
  public_id text not null unique,
  account_id bigint not null references accounts (id),
  periodicidade text not null check (periodicidade in ('diario', 'semanal', 'mensal')),
  status text not null check (status in ('ativo', 'inativo')),
  envia_email boolean not null,
  comprimir_arquivos boolean not null,
  -- The instant (on the account's clock) of the next generation; only the job for that instant acts.
  next_run_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index statement_schedules_account on statement_schedules (account_id, id);

-- The public half of the key pair POST /v1/extrato-cnab/gerar-chaves made; one per account, a new one
-- replaces it. The private half is answered once and never stored.
create table statement_sftp_keys (
  account_id bigint primary key references accounts (id),
  public_key text not null,
  created_at timestamptz not null
);
