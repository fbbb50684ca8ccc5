-- Money out (issue 14): Pix the account sends (by key, by bank data, or paying a BR Code), and MED
-- infractions opened against Pix it received. docs/sending.md, docs/infractions.md.

-- One row per send the account asked for. `id_envio` is the caller's idempotency key: unique per account,
-- and `request` keeps the body it came with, so the same id with another body can be refused.
create table sent_pix (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  id_envio text not null,
  end_to_end_id text not null unique,
  request jsonb not null,
  -- How the receiver was named: a key, bank data, or a BR Code (whose key or location decided the receiver).
  via text not null check (via in ('chave', 'dados_bancarios', 'qrcode')),
  -- The payer's own key: its webhook receives the outcome.
  payer_key text not null,
  info_pagador text,
  amount_cents bigint not null check (amount_cents > 0),
  -- What is shown as `favorecido` in reads and the sent-Pix webhook: {chave?, contaBanco?, identificacao{nome, cpf|cnpj}}.
  favorecido jsonb not null,
  -- Where the money goes: another account of this pixd (settled by the payment engine) or another institution.
  destination text not null check (destination in ('pixd', 'externa')),
  -- For a pixd destination, what the engine is told to pay: {kind: 'key'|'account'|'location', ...}.
  target jsonb,
  -- The receiving account of a pixd destination. No foreign key on purpose: checking it would take a key-share
  -- lock on the receiver's account row from inside the payer's transaction, and two accounts sending to each
  -- other at once would deadlock (each holds its own row for update). It holds by construction: it is read
  -- from the key or account the request resolved, and accounts are never deleted.
  receiver_account_id bigint,
  status text not null check (status in ('EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO')),
  motivo text,
  requested_at timestamptz not null,
  settled_at timestamptz,
  unique (account_id, id_envio)
);
create index sent_pix_account_requested on sent_pix (account_id, requested_at, id);

-- MED infractions: one per received Pix at most while it is undecided. The blocked amount sits in the
-- receiver's `customer:<id>:blocked:med` ledger account until the infraction ends.
create table infractions (
  id bigserial primary key,
  id_infracao text not null unique,
  account_id bigint not null references accounts (id),
  received_pix_id bigint not null references received_pix (id),
  end_to_end_id text not null,
  protocolo text not null,
  amount_cents bigint not null check (amount_cents > 0),
  -- The amount actually blocked (the available balance may cover less than the Pix).
  blocked_cents bigint not null check (blocked_cents >= 0),
  chave text,
  status text not null check (status in ('ABERTA', 'EM_DEFESA', 'ACEITA', 'REJEITADA', 'CANCELADA_EFI')),
  razao text not null,
  tipo_situacao text not null,
  defesa text,
  analise text check (analise in ('aceito', 'rejeitado')),
  origem jsonb not null,
  destino jsonb not null,
  opened_at timestamptz not null,
  deadline_at timestamptz not null,
  defence_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null
);
create unique index infractions_one_open_per_pix on infractions (received_pix_id) where status in ('ABERTA', 'EM_DEFESA');
create index infractions_account_opened on infractions (account_id, opened_at, id);
