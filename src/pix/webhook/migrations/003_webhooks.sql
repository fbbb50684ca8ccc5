-- Webhooks (docs/webhooks.md). Registrations are saved only after the receiver passed the handshake.

-- Pix webhooks: a key has one URL; a URL may serve many keys.
create table pix_webhooks (
  chave text primary key references pix_keys (chave),
  account_id bigint not null references accounts (id),
  webhook_url text not null,
  -- Registered with x-skip-mtls-checking: true (the receiver was not required to refuse a call without certificate).
  skip_mtls boolean not null,
  created_at timestamptz not null
);
create index pix_webhooks_account_created on pix_webhooks (account_id, created_at, chave);

-- Recurrence (rec) and automatic-charge (cobr) webhooks: one URL per account and kind.
create table account_webhooks (
  account_id bigint not null references accounts (id),
  kind text not null check (kind in ('rec', 'cobr')),
  webhook_url text not null,
  skip_mtls boolean not null,
  created_at timestamptz not null,
  primary key (account_id, kind)
);

-- Account-opening webhooks (/v1/webhook): several per account, each URL once.
create table opening_webhooks (
  id text primary key,
  account_id bigint not null references accounts (id),
  webhook_url text not null,
  chave text,
  created_at timestamptz not null,
  unique (account_id, webhook_url)
);
create index opening_webhooks_account_created on opening_webhooks (account_id, created_at, id);

-- Every delivery attempt of every webhook. The delivery itself is its outbox row (state, next attempt).
create table webhook_attempts (
  id bigserial primary key,
  outbox_id bigint not null,
  account_id bigint not null references accounts (id),
  topic text not null,
  url text not null,
  attempt integer not null,
  -- Service-clock time the attempt started (the sandbox clock moves it).
  attempted_at timestamptz not null,
  status_code integer,
  latency_ms integer not null,
  error text
);
create index webhook_attempts_outbox on webhook_attempts (outbox_id, id);
create index webhook_attempts_account on webhook_attempts (account_id, id);
