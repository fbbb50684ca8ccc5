-- Renewals run per (account, day), a batch of the day's due subscriptions at a time (docs/billing.md,
-- "Renewals"): each subscription says on which day of its account's clock its next renewal runs (its next
-- execution, or a boleto's lead days before it), and one job per account and day renews those due by then.
alter table billing_subscriptions add column renews_on date;
update billing_subscriptions
   set renews_on = next_execution - case when payment->>'method' = 'banking_billet' then 10 else 0 end
 where status in ('active', 'new_charge') and next_execution is not null;
create index billing_subscriptions_renewal on billing_subscriptions (account_id, renews_on)
  where status in ('active', 'new_charge');

-- The pending per-subscription renewal jobs become their day's job (duplicates of a day find nothing left).
update outbox o
   set topic = 'billing.subscription.renewals',
       payload = jsonb_build_object('accountId', s.account_id, 'date', to_char(s.renews_on, 'YYYY-MM-DD'))
  from billing_subscriptions s
 where o.topic = 'billing.subscription.renew' and o.done_at is null
   and s.id = (o.payload->>'subscriptionId')::bigint and s.renews_on is not null;
update outbox set done_at = created_at, last_error = 'renewals run per day since migration 044'
 where topic = 'billing.subscription.renew' and done_at is null;
