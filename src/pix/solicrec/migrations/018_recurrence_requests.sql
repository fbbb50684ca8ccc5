-- Requests to the payer's institution to confirm a recurrence (Bacen SolicRec, docs/automatic-pix.md).
-- Accepting one approves its recurrence; rejecting or letting it expire ends the recurrence.
create table recurrence_requests (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  -- Bacen idSolicRec: SC + ISPB + yyyyMMdd + 11 alphanumerics.
  id_solic_rec text not null unique,
  recurrence_id bigint not null references recurrences (id),
  status text not null check (status in ('CRIADA', 'ENVIADA', 'RECEBIDA', 'REJEITADA', 'ACEITA', 'EXPIRADA', 'CANCELADA')),
  -- The request as given (calendario.dataExpiracaoSolicitacao, destinatario).
  body jsonb not null,
  expires_at timestamptz not null,
  atualizacao jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- At most one open request per recurrence (the standard's "solicitação ativa").
create unique index recurrence_requests_open on recurrence_requests (recurrence_id)
  where status in ('CRIADA', 'ENVIADA', 'RECEBIDA');
