-- A charge is found by its txid through the unique (account_id, txid) and listed through an index on
-- (account_id, kind, created_at, id). Leading with account_id made the list index a rival for every lookup by
-- txid: while a table has no statistics (a new database, or autovacuum off) the planner rates both at one
-- row and may pick the list index, which then reads every charge of the account to find one; a cached
-- plan keeps that choice as the table grows (docs/performance.md, session 10). Led by kind, the list index
-- serves the same lists (each names its kind and account) and can no longer serve a lookup by account and
-- txid, so the unique key is the only index that does.
drop index charges_account_kind_created;
create index charges_kind_account_created on charges (kind, account_id, created_at, id);
