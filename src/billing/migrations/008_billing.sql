-- Card billing (docs/billing.md): charges, their history (status events and delivery failures), refunds,
-- payment tokens (card data only as an encrypted vault entry plus the mask) and metadata-update counting.

create table billing_charges (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  status text not null,
  total_cents bigint not null check (total_cents > 0),
  items jsonb not null,
  shippings jsonb not null,
  custom_id text,
  notification_url text,
  -- Stays the same for the charge's whole life (spec: Billing notifications 1).
  notification_token text not null unique,
  -- Bumped on every enqueued notification delivery: an older live delivery sees it and stops.
  notification_generation integer not null default 0,
  -- Highest status event id the receiver has fetched through GET /v1/notification/:token.
  notification_queried_event integer not null default 0,
  -- Unguessable address of the checkout page of this charge.
  checkout_token text not null unique,
  marketplace boolean not null,
  recurrent boolean not null default false,
  -- payment: method, installments, installment_value, card mask/brand, customer, billing_address, discount.
  payment jsonb,
  paid_cents bigint,
  refusal_reason text,
  refusal_retry boolean,
  approved_at timestamptz,
  paid_at timestamptz,
  refunded_cents bigint not null default 0 check (refunded_cents >= 0),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index billing_charges_account on billing_charges (account_id, id);

-- One row per history entry. Status changes carry event_id (1, 2, ... per charge): the notification data.
create table billing_history (
  id bigserial primary key,
  charge_id bigint not null references billing_charges (id),
  event_id integer,
  status text,
  previous_status text,
  message text not null,
  value_cents bigint,
  received_by_bank_at timestamptz,
  created_at timestamptz not null,
  unique (charge_id, event_id)
);
create index billing_history_charge on billing_history (charge_id, id);

create table billing_refunds (
  id bigserial primary key,
  charge_id bigint not null references billing_charges (id),
  amount_cents bigint not null check (amount_cents > 0),
  partial boolean not null,
  status text not null check (status in ('processing', 'done')),
  created_at timestamptz not null,
  done_at timestamptz
);
-- "No other refund in process": at most one processing refund per charge, whatever races above.
create unique index billing_refunds_one_processing on billing_refunds (charge_id) where status = 'processing';

create table billing_payment_tokens (
  -- SHA-256 of the token: a database reader cannot replay tokens.
  token_sha256 text primary key,
  account_id bigint not null references accounts (id),
  brand text not null,
  card_mask text not null,
  -- AES-256-GCM of the card data (never the CVV); the key lives in service_state, not beside it.
  vault_entry text not null,
  reuse boolean not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null
);

create table billing_metadata_updates (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  created_at timestamptz not null
);
create index billing_metadata_updates_account on billing_metadata_updates (account_id, created_at);
