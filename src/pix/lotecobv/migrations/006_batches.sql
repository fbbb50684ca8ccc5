-- Batches of due charges (docs/lotecobv.md). A batch is a caller-numbered set of due-charge requests;
-- each request is an item that the batch job turns into a charge (CRIADA) or refuses (NEGADA).
create table cobv_batches (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  -- The caller's id (PUT /v2/lotecobv/:id): ids are per account, like txids.
  public_id bigint not null,
  descricao text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (account_id, public_id)
);
create index cobv_batches_account_created on cobv_batches (account_id, created_at, id);

create table cobv_batch_items (
  batch_id bigint not null references cobv_batches (id),
  -- Order of the creating request, kept for reads.
  position integer not null,
  account_id bigint not null references accounts (id),
  txid text not null,
  -- Status of the item's latest request: EM_PROCESSAMENTO until the batch job decides it.
  status text not null check (status in ('EM_PROCESSAMENTO', 'CRIADA', 'NEGADA')),
  -- What the job must do: create the charge, replace it whole (PUT) or apply `patch` (PATCH).
  pending_op text check (pending_op in ('create', 'replace', 'revise')),
  -- The latest full creation request for this item (PUT), as sent.
  request jsonb not null,
  patch jsonb,
  -- Problem object (Bacen Problema) of a NEGADA item.
  problema jsonb,
  charge_id bigint references charges (id),
  primary key (batch_id, position),
  -- A txid belongs to one batch for good: a batch's charge never moves to another batch.
  unique (account_id, txid),
  check ((pending_op is null) = (status <> 'EM_PROCESSAMENTO'))
);
-- Backpressure counts an account's waiting items on every batch write.
create index cobv_batch_items_waiting on cobv_batch_items (account_id) where status = 'EM_PROCESSAMENTO';
create index cobv_batch_items_charge on cobv_batch_items (charge_id) where charge_id is not null;

-- Set once, when the batch job creates the charge; never changed (rule 2: a batch's charge never moves).
alter table charges add column batch_id bigint references cobv_batches (id);
create index charges_batch on charges (batch_id, created_at, id) where batch_id is not null;
