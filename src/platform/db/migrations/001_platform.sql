-- Service-wide state shared by every node: PKI material, token signing key, sandbox clock offset.
create table service_state (
  name text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);

create table accounts (
  id bigserial primary key,
  nome text not null,
  documento text not null,
  conta text not null unique,
  payee_code text not null unique,
  cidade text not null,
  created_at timestamptz not null
);

create table pix_keys (
  chave text primary key,
  account_id bigint not null references accounts (id),
  tipo text not null check (tipo in ('evp', 'cpf', 'cnpj', 'email', 'phone')),
  created_at timestamptz not null,
  removed_at timestamptz
);
create index pix_keys_account on pix_keys (account_id);

create table applications (
  client_id text primary key,
  account_id bigint not null references accounts (id),
  secret_hash text not null,
  scopes text[] not null,
  certificate_sha256 text not null unique,
  active boolean not null default true,
  created_at timestamptz not null
);
create index applications_account on applications (account_id);

create table locations (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  tipo_cob text not null check (tipo_cob in ('cob', 'cobv')),
  token text not null unique,
  created_at timestamptz not null
);
create index locations_account_created on locations (account_id, created_at);

create table charges (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  txid text not null,
  kind text not null check (kind in ('cob', 'cobv')),
  revisao integer not null check (revisao >= 0),
  status text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- Derived from body on every write, kept as columns so lists and payability checks can filter on them.
  amount_cents bigint not null check (amount_cents >= 0),
  chave text not null,
  devedor_cpf text,
  devedor_cnpj text,
  location_id bigint references locations (id),
  body jsonb not null,
  unique (account_id, txid)
);
create unique index charges_one_per_location on charges (location_id) where location_id is not null;
create index charges_account_kind_created on charges (account_id, kind, created_at, id);

-- Every revision is kept whole: GET ?revisao=N answers from here.
create table charge_revisions (
  charge_id bigint not null references charges (id),
  revisao integer not null,
  status text not null,
  location_id bigint,
  body jsonb not null,
  created_at timestamptz not null,
  primary key (charge_id, revisao)
);

-- Documents the institution refuses as payers of new charges (POST /v1/cob answers documento_bloqueado).
create table blocked_documents (
  documento text primary key,
  reason text not null,
  created_at timestamptz not null
);
