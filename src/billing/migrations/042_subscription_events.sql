-- A subscription's own status events (type subscription) live in the history of its first charge, whose
-- notification token is the subscription's (docs/billing.md, "Subscription notifications"): the subscription
-- they are about.
alter table billing_history add column subject_subscription_id bigint references billing_subscriptions (id);
