-- Open Finance automatic payments (docs/automatic-payments.md): pixd as the initiating institution.

-- The application's addresses (PUT /v1/config): one row per account.
create table of_config (
  account_id bigint primary key references accounts (id),
  redirect_url text not null,
  webhook_url text not null,
  -- 'mtls' or 'hmac'; the HMAC key when 'hmac'.
  webhook_security text not null check (webhook_security in ('mtls', 'hmac')),
  hmac_key text,
  process_payment text not null default 'sync',
  updated_at timestamptz not null
);

-- Payer institutions outside the sandbox (the sandbox serves its fictitious list from code): operator-managed.
create table of_participants (
  identificador text primary key,
  ispb text not null,
  nome text not null,
  descricao text not null default '',
  portal text not null default '',
  logo text not null default '',
  cnpj text not null
);

create table of_enrolments (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  identificador text not null unique,
  status text not null check (status in ('pendente', 'autorizado', 'rejeitado', 'revogado', 'finalizado')),
  motivo text,
  -- {pagador, favorecido, assinatura} as the application sent them.
  body jsonb not null,
  id_proprio text,
  -- The payer's CPF or CNPJ, for the `documento` filter.
  documento text not null,
  -- The consent link's secret and until when (account clock) it can be used.
  consent_token text not null unique,
  consent_expires_at timestamptz not null,
  -- The client's x-idempotency-key of the creation (the SDK sends one with every Open Finance call).
  idempotency_key text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, idempotency_key)
);
-- Keyset paging of the list: (account, creation instant, id), newest last.
create index of_enrolments_page on of_enrolments (account_id, created_at, id);

create table of_payments (
  id bigserial primary key,
  enrolment_id bigint not null references of_enrolments (id),
  account_id bigint not null references accounts (id),
  end_to_end_id text not null unique,
  amount_cents bigint not null check (amount_cents > 0),
  -- The settlement date (Brasília calendar) and the recurrence period it occupies (see payments/rules.ts).
  data date not null,
  period integer not null,
  info_pagador text,
  codigo_cidade_ibge text,
  status text not null check (status in ('pendente', 'aceito', 'rejeitado', 'cancelado', 'expirado')),
  motivo text,
  idempotency_key text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, idempotency_key)
);
create index of_payments_enrolment on of_payments (enrolment_id, created_at, id);
-- At most one live (pending or accepted) payment per recurrence period of an enrolment.
create unique index of_payments_one_per_period on of_payments (enrolment_id, period)
  where status in ('pendente', 'aceito');
