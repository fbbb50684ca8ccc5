-- Boletos and carnês (docs/billing.md, "Boletos"): the boleto of a charge (its barcode, terms and Pix QR), the
-- carnê as a charge row of kind 'carnet' (its notification token, history and delivery are the charges'), its
-- parcels as charges pointing at it, and the mail outbox the billing e-mails go through.

alter table billing_charges add column kind text not null default 'charge' check (kind in ('charge', 'carnet'));
alter table billing_charges add column carnet_id bigint references billing_charges (id);
alter table billing_charges add column parcel integer;
create index billing_charges_carnet on billing_charges (carnet_id, parcel) where carnet_id is not null;

-- A carnê's history also carries its parcels' status events (type carnet_charge): the parcel they are about.
alter table billing_history add column subject_charge_id bigint references billing_charges (id);

create table billing_boletos (
  charge_id bigint primary key references billing_charges (id),
  account_id bigint not null references accounts (id),
  -- The 44-digit FEBRABAN barcode; the linha digitável is derived from it.
  barcode text not null unique,
  due_date date not null,
  -- Amount on the due date (items + shippings − discount): the barcode's amount.
  amount_cents bigint not null check (amount_cents > 0),
  -- fine, interest, conditional discount and write-off days, as cents and days (the amount rules' input).
  terms jsonb not null,
  customer jsonb not null,
  message text,
  -- The due Pix charge (cobv) printed as the QR; null when the account had no Pix key.
  pix_charge_id bigint references charges (id),
  pix_txid text,
  -- Its copy-and-paste code as printed on the PDF (the boleto is a document: what was printed stays).
  pix_qrcode text,
  balance_sheet jsonb,
  -- Unguessable address of the PDF and the page (no token asked there).
  link_token text not null unique,
  -- A payment by barcode registered (the Pix QR was withdrawn then), credited at credit_at.
  barcode_paid_at timestamptz,
  barcode_paid_cents bigint,
  barcode_payer jsonb,
  credit_at timestamptz,
  created_at timestamptz not null
);
create index billing_boletos_account on billing_boletos (account_id, charge_id);
create unique index billing_boletos_pix on billing_boletos (pix_charge_id);

create table mail_outbox (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  to_address text not null,
  subject text not null,
  body text not null,
  -- What the e-mail is about: 'charge:<id>' or 'carnet:<id>'.
  reference text not null,
  status text not null check (status in ('queued', 'sent', 'failed')),
  error text,
  created_at timestamptz not null,
  sent_at timestamptz
);
create index mail_outbox_account on mail_outbox (account_id, id);
