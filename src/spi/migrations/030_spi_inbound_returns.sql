-- Inbound pacs.004 (a return of a Pix this node sent through the SPI, docs/spi.md): credited once per RtrId,
-- whatever the MsgId of a copy; each accepted one records the Pix it returns and the amount credited, so the
-- returns of one Pix never add up past its amount.
alter table spi_inbound add column original_id text;
alter table spi_inbound add column amount_cents bigint;
create unique index spi_inbound_return_once on spi_inbound (ref_id) where kind = 'pacs.004';
create index spi_inbound_returns_of on spi_inbound (original_id) where kind = 'pacs.004';
