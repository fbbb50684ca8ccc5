-- The payload of an immediate charge names the recurrence a composite code (journey 3) pairs it with: found
-- by the charge's txid on every payer's fetch, so indexed (only journey-3 recurrences carry one).
create index recurrences_journey_txid on recurrences (account_id, txid) where txid is not null;
