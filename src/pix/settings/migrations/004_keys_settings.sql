-- Random keys and account settings (docs/keys-settings.md).
-- Keys live in pix_keys (001): a removed key keeps its row with removed_at set, so its chave can never be
-- inserted again (primary key) and charges made for it stay unpayable.

-- Counting an account's active keys against the DICT limit, under the account row lock.
create index pix_keys_account_active on pix_keys (account_id) where removed_at is null;

-- Account-wide receiving settings (PUT /v2/gn/config, pix.receberSemChave). No row: the defaults.
create table account_settings (
  account_id bigint primary key references accounts (id),
  receber_sem_chave boolean not null,
  updated_at timestamptz not null
);

-- Per-key settings (pix.chaves.<key>). No row: the defaults. One column per setting, because the payment
-- engine and the webhook delivery read them on every Pix and refuse or shape it by them.
create table pix_key_settings (
  chave text primary key references pix_keys (chave),
  account_id bigint not null references accounts (id),
  txid_obrigatorio boolean not null,
  recusar_tipo_pessoa text check (recusar_tipo_pessoa in ('PF', 'PJ')),
  qrcode_estatico_recusar_todos boolean not null,
  webhook_notificar_tarifa boolean not null,
  webhook_notificar_pagador boolean not null,
  webhook_notificar_pix_sem_txid boolean not null,
  -- Sent Pix (envio): stored and shown; they take effect once this service sends Pix.
  envio_notificar_tarifa boolean not null,
  envio_notificar_favorecido boolean not null,
  updated_at timestamptz not null
);
create index pix_key_settings_account on pix_key_settings (account_id);
