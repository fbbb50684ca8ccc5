-- Open Finance Pix payments (docs/open-finance-pix.md): immediate, scheduled, recurring and biometric Pix
-- initiated by pixd at the payer's institution, and the biometric links (vínculos) the last kind uses.

-- A biometric link: the payer authorises once at the institution's page; payments then need no page.
create table of_links (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  identificador text not null unique,
  status text not null check (status in ('pendente', 'autorizado', 'rejeitado', 'revogado')),
  motivo text,
  -- {idParticipante, cpf, cnpj?} as the application sent it.
  pagador jsonb not null,
  -- The payer's CPF (the person who logs in), for GET …/vinculos?cpf=.
  cpf text not null,
  cnpj text,
  transaction_limit_cents bigint not null,
  daily_limit_cents bigint not null,
  consent_token text not null unique,
  consent_expires_at timestamptz not null,
  authorised_at timestamptz,
  expires_at timestamptz,
  idempotency_key text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, idempotency_key)
);
create index of_links_payer on of_links (account_id, cpf, created_at);

-- A payment: the payer's consent (a page, or a link for 'biometria') and what it pays.
create table of_pix_payments (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  identificador text not null unique,
  kind text not null check (kind in ('imediato', 'agendado', 'recorrente', 'biometria')),
  status text not null
    check (status in ('pendente', 'agendado', 'aceito', 'rejeitado', 'cancelado', 'expirado', 'concluido')),
  motivo text,
  -- {pagador, favorecido?, pagamento} as the application sent it (a replacement: the parent's, with its valor).
  body jsonb not null,
  amount_cents bigint not null check (amount_cents > 0),
  id_proprio text,
  -- The receiving account (the application's own; see docs).
  receiver_conta text not null,
  -- The parcel dates the consent covers (YYYY-MM-DD), in order.
  dates text[] not null,
  link_id bigint references of_links (id),
  -- A replacement (PATCH …/substituir): the parcel it replaces once the payer authorises it.
  replaces_parcel_id bigint,
  consent_token text unique,
  consent_expires_at timestamptz,
  -- When the payer authorised it (at the page, or by the biometric link): its parcels exist from then on.
  authorised_at timestamptz,
  idempotency_key text,
  cancelled_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, idempotency_key)
);
create index of_pix_payments_page on of_pix_payments (account_id, kind, created_at, id);
create index of_pix_payments_link on of_pix_payments (link_id, created_at) where link_id is not null;

-- Each Pix a payment makes: one for immediate, scheduled and biometric payments, one per date for recurring.
create table of_pix_parcels (
  id bigserial primary key,
  payment_id bigint not null references of_pix_payments (id),
  account_id bigint not null references accounts (id),
  end_to_end_id text not null unique,
  amount_cents bigint not null check (amount_cents > 0),
  data date not null,
  status text not null check (status in ('agendado', 'aceito', 'rejeitado', 'cancelado', 'substituido')),
  motivo text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index of_pix_parcels_payment on of_pix_parcels (payment_id, data, id);
