-- The SPI boundary (docs/spi.md). Inbound: every message the gateway delivered, by its MsgId, with the answer
-- pixd gave, so a redelivery (same MsgId) or a second pacs.008 with the same end-to-end id is answered with the
-- same outcome and never credited twice. Outbound: the ordered queue the gateway pulls and acknowledges; each
-- message's pacs.002 answer is recorded on it.
create table spi_inbound (
  msg_id text primary key,
  kind text not null,
  -- The end-to-end id of a pacs.008, the RtrId of a pacs.004, the answered id of a pacs.002.
  ref_id text not null,
  account_id bigint references accounts (id),
  -- pixd's answer (pacs.002 or admi.002); null while the transaction that decides it is open.
  answer text,
  received_at timestamptz not null
);
-- One credit per end-to-end id, whatever the MsgId of the copy.
create unique index spi_inbound_credit_once on spi_inbound (ref_id) where kind = 'pacs.008';
create index spi_inbound_account on spi_inbound (account_id);

create table spi_outbound (
  -- The queue's order: the gateway takes messages by id, so per account (and overall) they leave in order.
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  kind text not null check (kind in ('pacs.008', 'pacs.004')),
  msg_id text not null unique,
  -- The end-to-end id (pacs.008) or RtrId (pacs.004) that the pacs.002 answer names.
  ref_id text not null unique,
  sent_pix_id bigint references sent_pix (id),
  refund_id bigint references refunds (id),
  xml text not null,
  created_at timestamptz not null,
  acked_at timestamptz,
  -- The pacs.002 status that decided it (or RJCT AB03 when none came in time), and when.
  answer_status text,
  answered_at timestamptz
);
create index spi_outbound_pending on spi_outbound (id) where acked_at is null;
create index spi_outbound_account on spi_outbound (account_id);
