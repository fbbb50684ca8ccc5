-- The pacs.002 pixd sends later (docs/spi.md, "A Pix that waits for a participant"): the answer to an inbound
-- pacs.008 held for the receiving participant's confirmation leaves through the outbound queue once decided.
alter table spi_outbound drop constraint spi_outbound_kind_check;
alter table spi_outbound add constraint spi_outbound_kind_check check (kind in ('pacs.008', 'pacs.004', 'pacs.002'));
