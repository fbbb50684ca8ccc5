-- The charge's reference to its location was the last foreign key checked by the create statement, and
-- the costliest part of it: per charge, a lookup and a FOR KEY SHARE lock on the location row just
-- inserted (another WAL record, another dirtied page); about a fifth of the statement's time with 31
-- charges (EXPLAIN ANALYZE). The reference is guaranteed where the rows are written:
--   * a fresh location is inserted by the same statement or transaction that writes its charge;
--   * a named location is locked (FOR UPDATE) and checked in the transaction that points a charge at it;
--   * the only deletion of locations removes fresh batch locations whose charge was not written
--     (lotecobv/process.ts), so no charge points at them.
alter table charges drop constraint charges_location_id_fkey;
