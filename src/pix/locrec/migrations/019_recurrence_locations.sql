-- Locations of recurrences (Bacen /locrec, docs/automatic-pix.md): a capability URL a recurrence's QR code
-- points at. A recurrence uses at most one location and a location serves at most one recurrence.
create table recurrence_locations (
  id bigserial primary key,
  account_id bigint not null references accounts (id),
  token text not null unique,
  created_at timestamptz not null
);

create index recurrence_locations_account_created on recurrence_locations (account_id, created_at);

alter table recurrences add column location_id bigint references recurrence_locations (id);
create unique index recurrences_location on recurrences (location_id) where location_id is not null;
