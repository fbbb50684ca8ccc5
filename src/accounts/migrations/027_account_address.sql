-- The account holder's address: Bacen's due-charge answers and payloads name the receiver (`recebedor`)
-- with logradouro, cidade, uf and cep, all required (DadosRecebedor). `cidade` exists since 001. Accounts
-- created before this migration get the demo address (docs/decisions.md); PUT /v2/gn/config changes it.
alter table accounts
  add column logradouro text not null default 'Avenida Paulista, 1000',
  add column uf text not null default 'SP' check (uf ~ '^[A-Z]{2}$'),
  add column cep text not null default '01310100' check (cep ~ '^[0-9]{8}$');
