-- Webhook attempts keep what was sent and what the receiver answered, each cut to
-- LIMITS.webhookAttemptBodyBytes (the console shows them), with the full sizes in bytes so a cut is visible.
-- Attempts stored before this have none (null).
alter table webhook_attempts
  add column request_body text,
  add column request_bytes integer,
  add column response_body text,
  add column response_bytes integer;

-- Console sessions ended by "Sair": a signed cookie copied before stays refused. A row is needed only while
-- a copy could still be within its idle time; after `expires_at` any copy is expired anyway and the row goes.
create table console_session_revocations (
  session_id text primary key,
  expires_at timestamptz not null
);
create index console_session_revocations_expires on console_session_revocations (expires_at);

-- The console's cobr tab pages by keyset, newest first, like the other charge tabs: (created_at, id) with
-- the account first. It replaces the index without `id`, whose every use it covers.
create index recurring_charges_account_created_id on recurring_charges (account_id, created_at, id);
drop index recurring_charges_account_created;

-- Console users: people the operator lets into the console (`pixd console-user create`), each with the
-- accounts they may see and a role, a named set of API scopes (src/console/users/roles.ts). The secret is
-- shown once; only its hash is kept, like a client secret's.
create table console_users (
  id bigserial primary key,
  name text not null unique,
  secret_hash text not null,
  role text not null check (role in ('viewer', 'developer', 'admin')),
  created_at timestamptz not null
);
create table console_user_accounts (
  user_id bigint not null references console_users (id) on delete cascade,
  account_id bigint not null references accounts (id),
  primary key (user_id, account_id)
);
