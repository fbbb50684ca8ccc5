-- Posted totals. A customer's balance used to be the sum of all its journal lines, read under a lock on
-- every refund, scheduled Pix and balance call: its cost grew with the account's history. Each customer
-- ledger account now carries its posted total, updated by the statement that writes the lines
-- (src/platform/ledger/ledger.ts `post`). The lines stay the audit trail; `pixd ledger verify` recomputes
-- every total from them.
--
-- The institution's own accounts (external:pix, external:card, revenue:fees; account_id null) keep no
-- total: every payment of every tenant touches external:pix, and a total there would be one row that all
-- payments queue on. Nobody reads their balance on a hot path; it is the sum of their lines.
alter table ledger_accounts add column balance_cents bigint;

update ledger_accounts a
   set balance_cents = coalesce((select sum(l.amount_cents) from journal_lines l where l.ledger_account_id = a.id), 0)
 where a.account_id is not null;

-- A customer account always has a total, an institution account never does.
alter table ledger_accounts add constraint ledger_accounts_total_iff_customer
  check ((account_id is null) = (balance_cents is null));
-- No customer balance (available, or blocked judicial/MED) ever goes below zero, whatever the code path.
alter table ledger_accounts add constraint ledger_accounts_balance_not_negative
  check (balance_cents >= 0);
