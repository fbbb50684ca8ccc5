-- Open Finance payments arrive through the SPI boundary (docs/decisions.md): the payer's institution sends the Pix
-- outside the payment's lock, so each payment (automatic payments) and parcel (Pix payments) records when its payer's
-- institution was asked to pay it. From then on only the answer moves it: a cancellation or a replacement that came
-- in between would leave a Pix credited to a payment that says it was not paid.
alter table of_payments add column payer_asked_at timestamptz;
alter table of_pix_parcels add column payer_asked_at timestamptz;
