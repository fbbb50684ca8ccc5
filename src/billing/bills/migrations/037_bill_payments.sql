-- Paying bills (docs/bill-payments.md): boletos and arrecadação bills paid from an account's balance.

create table bill_payments (
  -- idPagamento is this id: the interface's payment ids are numbers (GET /v1/resumo lists failed ones as such).
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  -- 'boleto' (bank layout) or 'tributo' (arrecadação layout), as GET /v1/codBarras answers it.
  tipo text not null check (tipo in ('boleto', 'tributo')),
  barcode text not null check (length(barcode) = 44),
  linha_digitavel text not null,
  amount_cents bigint not null check (amount_cents > 0),
  -- dataPagamento: the Brasília date the payment is made on (today, or later: scheduled).
  payment_date date not null,
  descricao text,
  status text not null check (status in ('EM_PROCESSAMENTO', 'AGENDADO', 'EXECUTADO', 'LIQUIDADO', 'CANCELADO', 'NAO_REALIZADO')),
  -- A boleto this pixd issued, paid on us: its billing charge (no foreign key: a sandbox reset of the issuer
  -- removes its charges, and the payer's record of having paid stays).
  on_us_charge_id bigint,
  -- The settlement's authentication (LIQUIDADO) or why it was not made (NAO_REALIZADO).
  protocolo text,
  motivo_recusa text,
  requested_at timestamptz not null,
  settled_at timestamptz,
  updated_at timestamptz not null
);
-- GET /v1/resumo: an account's requests in a period.
create index bill_payments_account_requested on bill_payments (account_id, requested_at);
-- A bill is paid at most once: while one payment of a barcode is live or done, another is refused.
create unique index bill_payments_one_live_per_barcode on bill_payments (barcode)
  where status not in ('CANCELADO', 'NAO_REALIZADO');

-- The bill-payment webhook (PUT /v1/webhook of that family): one address per account.
create table bill_payment_webhooks (
  account_id bigint primary key references accounts (id),
  url text not null,
  created_at timestamptz not null
);
