-- Automatic Pix recurrences (docs/automatic-pix.md): the authorisation a payer gives a receiver to charge
-- periodically. One row per recurrence; what the receiver asked for is kept whole in `body` (vinculo,
-- calendario, valor, recebedor.convenio) and the fields the state machine reads and writes are columns.
create table recurrences (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  -- Bacen RecId: R + R|N (retries allowed or not) + ISPB + yyyyMMdd + 11 alphanumerics.
  id_rec text not null unique,
  status text not null check (status in ('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
  politica_retentativa text not null check (politica_retentativa in ('NAO_PERMITE', 'PERMITE_3R_7D')),
  body jsonb not null,
  -- Journey 3: the immediate charge paid together with the approval.
  txid text,
  tipo_jornada text not null default 'AGUARDANDO_DEFINICAO',
  -- The payer's account once the payer approved (DadosPagadorRec).
  pagador jsonb,
  -- Why it ended (RecEncerramento: rejeicao or cancelamento).
  encerramento jsonb,
  -- Every status with its instant, oldest first (RecAtualizacao).
  atualizacao jsonb not null,
  devedor_documento text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create index recurrences_account_created on recurrences (account_id, created_at);
