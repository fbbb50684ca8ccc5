-- The directory's token buckets for key lookups (issue 32 item 4; docs/sending.md, "Key lookups"): per account,
-- bucket A (CPF, CNPJ and random keys: DICT policy ENTRIES_READ_USER_ANTISCAN_V2) and B (phone and e-mail:
-- ENTRIES_READ_USER_ANTISCAN). A row holds the tokens as of `refilled_at` (the account's clock); the refill since
-- then is computed when the bucket is read or used. No row: a full bucket.
create table key_lookup_buckets (
  account_id bigint not null references accounts (id),
  bucket text not null check (bucket in ('A', 'B')),
  tokens double precision not null check (tokens >= 0),
  refilled_at timestamptz not null,
  primary key (account_id, bucket)
);
