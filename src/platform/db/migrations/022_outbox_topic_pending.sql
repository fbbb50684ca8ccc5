-- Claims read the pending jobs of their own topics in the order they fell due (src/platform/outbox/outbox.ts):
-- without this, a claim walked past every pending job of the other topics.
create index outbox_topic_pending on outbox (topic, available_at, id) where done_at is null;
