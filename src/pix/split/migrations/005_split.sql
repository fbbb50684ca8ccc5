-- Payment split (docs/split.md): reusable configurations, their links to charges, and what each
-- received Pix was divided into.

-- The current state of a configuration per (account, id); every revision is kept whole below.
create table split_configs (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  config_id text not null,
  revisao integer not null check (revisao >= 0),
  status text not null check (status in ('ATIVA')),
  -- The configuration's own txid: Pix received by key or static QR code with this txid are split by it.
  txid text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, config_id),
  unique (account_id, txid)
);

create table split_config_revisions (
  split_config_id bigint not null references split_configs (id),
  revisao integer not null,
  txid text not null,
  tipo text not null check (tipo in ('porcentagem', 'fixo')),
  -- The request as given (descricao, lancamento, split): what reads show.
  body jsonb not null,
  created_at timestamptz not null,
  primary key (split_config_id, revisao)
);

-- The shares of each revision with beneficiaries resolved to accounts when the revision was written,
-- so a payment never looks documents up. Position 0 is the receiver (minhaParte), then the repasses in order.
create table split_config_shares (
  split_config_id bigint not null,
  revisao integer not null,
  position integer not null check (position >= 0),
  account_id bigint not null references accounts (id),
  -- Hundredths: of a percent (tipo porcentagem, 100.00 % = 10000) or of a real (tipo fixo, i.e. cents).
  valor_hundredths bigint not null check (valor_hundredths >= 0),
  primary key (split_config_id, revisao, position),
  foreign key (split_config_id, revisao) references split_config_revisions (split_config_id, revisao)
);

-- A charge's link pins the revision that was current (and checked against the charge) when it was linked.
create table split_links (
  charge_id bigint primary key references charges (id),
  split_config_id bigint not null,
  revisao integer not null,
  linked_at timestamptz not null,
  foreign key (split_config_id, revisao) references split_config_revisions (split_config_id, revisao)
);
create index split_links_config on split_links (split_config_id);

-- What a received Pix was divided into; its presence is what makes the Pix non-refundable.
create table split_distributions (
  id bigserial primary key,
  received_pix_id bigint not null unique references received_pix (id),
  split_config_id bigint not null,
  revisao integer not null,
  -- Null when every repasse rounded to zero cents (nothing moved).
  journal_entry_id bigint references journal_entries (id),
  created_at timestamptz not null,
  foreign key (split_config_id, revisao) references split_config_revisions (split_config_id, revisao)
);

create table split_distribution_shares (
  distribution_id bigint not null references split_distributions (id),
  position integer not null check (position >= 0),
  account_id bigint not null references accounts (id),
  amount_cents bigint not null check (amount_cents >= 0),
  primary key (distribution_id, position)
);
create index split_distribution_shares_account on split_distribution_shares (account_id);
