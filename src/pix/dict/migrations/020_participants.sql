-- Participant-side directory (issue 16, docs/participants.md): indirect participants, their key entries,
-- incoming Pix held until the participant confirms them, and special refund requests.

-- An account marked as an indirect participant has its own ISPB; only its applications may hold *.ind.* scopes.
alter table accounts add column participant_ispb text unique;

-- A key registered through POST /dict/entries: a Pix to it waits for the participant's confirmation
-- (POST /v1/pix/confirm) before anything is credited, as the SPI waits for the receiver's pacs.002.
alter table pix_keys add column confirm_incoming boolean not null default false;

-- The directory's view of an entry: who owns the key, in which participant's account. The key itself is the
-- pix_keys row (its primary key makes a key unique across the whole pixd, entries and the platform's own keys).
create table dict_entries (
  key text primary key references pix_keys (chave),
  account_id bigint not null references accounts (id),
  -- Idempotency: the same request id with the same body answers the same entry; another body is refused.
  request_id uuid not null unique,
  request_sha256 text not null,
  key_type text not null,
  owner_tax_id text not null,
  owner_type text not null check (owner_type in ('NATURAL_PERSON', 'LEGAL_PERSON')),
  participant text not null,
  branch text not null,
  account_number text not null,
  -- The entry as answered (upper-cased enumerations, creation and ownership dates).
  entry jsonb not null,
  created_at timestamptz not null
);
-- The per-owner limit counts an owner's keys in one participant's account.
create index dict_entries_owner on dict_entries (participant, branch, account_number, owner_tax_id);

-- An incoming Pix to a key that needs confirmation. Nothing is credited while it is WAITING; ACSP sends it
-- through the payment engine (its received_pix row, ledger entry, webhook), RJCT and EXPIRED return it.
create table pix_confirmations (
  end_to_end_id text primary key,
  account_id bigint not null references accounts (id),
  chave text not null,
  amount_cents bigint not null check (amount_cents > 0),
  -- What the engine is given again on ACSP (target, amount, payer, origin, end-to-end id).
  incoming jsonb not null,
  status text not null check (status in ('WAITING', 'ACSP', 'RJCT', 'EXPIRED')),
  received_at timestamptz not null,
  deadline_at timestamptz not null,
  decided_at timestamptz,
  -- RJCT: the participant's {code, reason}; EXPIRED: the timeout; ACSP refused by the engine: its refusal.
  error jsonb
);
create index pix_confirmations_account on pix_confirmations (account_id, received_at);

-- Special refund requests (POST /dict/refunds) on a Pix the participant's customer paid or received.
create table dict_refunds (
  id uuid primary key,
  account_id bigint not null references accounts (id),
  transaction_id text not null,
  -- 'paid': the customer sent the Pix (money comes back to them); 'received': the customer received it.
  direction text not null check (direction in ('paid', 'received')),
  refund_amount_cents bigint not null check (refund_amount_cents > 0),
  refund_details text not null,
  refund_reason text not null,
  requesting_participant text not null,
  contested_participant text not null,
  status text not null check (status in ('open', 'closed')),
  result text check (result in ('totally_accepted', 'partially_accepted', 'rejected')),
  refunded_amount_cents bigint check (refunded_amount_cents >= 0),
  created_at timestamptz not null,
  last_modified timestamptz not null
);
create index dict_refunds_transaction on dict_refunds (transaction_id);
