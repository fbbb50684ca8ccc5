-- Creating a charge is the hottest write, and every location and charge row checked its account with a
-- foreign key: a lookup plus a lock of the account's row (FOR KEY SHARE). Under load that lock is the
-- problem: every concurrent transaction of one account locks the same row, which PostgreSQL records as a
-- multixact, a known bottleneck for a busy merchant. The reference is guaranteed where the rows are written:
--   * the create statement writes a charge only after finding its key belonging to that account
--     (pix_keys.account_id still references accounts), and account ids come from the authenticated
--     application (applications.account_id references accounts);
--   * accounts are never deleted.
-- The charge's reference to its location stays: the location row is new or claimed in the same transaction.
alter table locations drop constraint locations_account_id_fkey;
alter table charges drop constraint charges_account_id_fkey;
