-- Faults on demand (issue 33 item 3, docs/faults.md): what an integrator asked the sandbox to get wrong for an
-- account, one row per account and kind (asking again replaces it). Sandbox only: production never writes
-- here. Nodes read the table into a cache (src/sandbox/faults/book.ts); an occurrence a fault answers is
-- counted here, so nodes agree on how many are left.
create table sandbox_faults (
  account_id bigint not null references accounts (id),
  kind text not null,
  -- What the core is told (FaultParams in src/platform/extensions.ts).
  params jsonb not null,
  -- Occurrences left; null: every one. A fault at 0 is spent (and stays until cleared or reset).
  remaining integer check (remaining is null or remaining >= 0),
  -- The end of its period on the account's clock; null: until cleared.
  ends_at timestamptz,
  created_at timestamptz not null,
  primary key (account_id, kind)
);
