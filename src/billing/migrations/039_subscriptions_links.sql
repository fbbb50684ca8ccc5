-- Plans, subscriptions and payment links (docs/billing.md, "Subscriptions" and "Payment links").

create table billing_plans (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  name text not null,
  interval_months integer not null check (interval_months between 1 and 24),
  -- How many charges a subscription makes; null: until it is cancelled.
  repeats integer check (repeats is null or repeats between 2 and 120),
  -- Deleted plans stay for the subscriptions that named them (history), but are listed and used no more.
  deleted_at timestamptz,
  created_at timestamptz not null
);
create index billing_plans_account on billing_plans (account_id, id);

create table billing_subscriptions (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  plan_id bigint not null references billing_plans (id),
  status text not null check (status in ('new', 'active', 'new_charge', 'canceled', 'expired')),
  items jsonb not null,
  shippings jsonb not null,
  custom_id text,
  notification_url text,
  -- The first charge's card payment (vault reference, mask, customer): every renewal is charged with it.
  payment jsonb,
  -- Brasília date of the first charge: renewal n falls interval × (n − 1) months after it (clamped to month end).
  first_execution date,
  -- Charges made so far (the parcel of the last one).
  occurrences integer not null default 0,
  -- Brasília date of the next renewal on the account's clock; null once nothing more will be charged.
  next_execution date,
  -- Subscription link (one-step link): the page where the payer chooses how to pay the first charge.
  link_token text unique,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index billing_subscriptions_account on billing_subscriptions (account_id, id);
create index billing_subscriptions_plan on billing_subscriptions (plan_id) where status in ('new', 'active', 'new_charge');

-- Each charge of a subscription once: the primary key is what makes a renewal run at most once per parcel,
-- whatever the outbox retries.
create table billing_subscription_charges (
  subscription_id bigint not null references billing_subscriptions (id),
  parcel integer not null,
  charge_id bigint not null unique references billing_charges (id),
  primary key (subscription_id, parcel)
);

create table billing_subscription_history (
  id bigserial primary key,
  subscription_id bigint not null references billing_subscriptions (id),
  status text,
  message text not null,
  created_at timestamptz not null
);
create index billing_subscription_history_subscription on billing_subscription_history (subscription_id, id);

-- A charge's payment link: what the payer may choose and what the page asks for.
create table billing_links (
  charge_id bigint primary key references billing_charges (id),
  token text not null unique,
  payment_method text not null check (payment_method in ('banking_billet', 'credit_card', 'all')),
  billet_discount integer,
  card_discount integer,
  conditional_discount jsonb,
  message text,
  -- Brasília date: the page takes no payment after this day (account's clock).
  expire_at date not null,
  request_delivery_address boolean not null,
  -- What the payer gave on the page (delivery address) and the e-mails the link was sent to.
  delivery_address jsonb,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
