-- Recurring charges of automatic Pix (docs/automatic-pix.md): one per due date of an approved recurrence,
-- settled on that date through the payment engine, with the attempts (`tentativas`) the standard records.
create table recurring_charges (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  recurrence_id bigint not null references recurrences (id),
  txid text not null,
  status text not null check (status in ('CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA')),
  -- The request as given (infoAdicional, calendario, valor, ajusteDiaUtil, recebedor, devedor).
  body jsonb not null,
  amount_cents bigint not null check (amount_cents > 0),
  -- The effective due date (YYYY-MM-DD, Brasília), after ajusteDiaUtil moved it off a non-business day.
  due_date text not null,
  atualizacao jsonb not null,
  -- Every settlement attempt (CobRTentativas), oldest first.
  tentativas jsonb not null default '[]',
  encerramento jsonb,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, txid)
);

create index recurring_charges_account_created on recurring_charges (account_id, created_at);
create index recurring_charges_recurrence on recurring_charges (recurrence_id);
