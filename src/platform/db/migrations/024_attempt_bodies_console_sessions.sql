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
