-- Refunds of a Pix divided by a split (issue 32 item 4; docs/split.md, "Refunds"): what each position of the
-- division gives back for one refund, decided when the refund is asked (in proportion to what each still holds of
-- the Pix, so the refunds of a Pix never take more from a position than it received) and moved from the
-- beneficiaries back to the receiver when the refund settles.
create table split_refund_shares (
  refund_id bigint not null references refunds (id),
  position integer not null check (position >= 0),
  account_id bigint not null references accounts (id),
  amount_cents bigint not null check (amount_cents >= 0),
  primary key (refund_id, position)
);
