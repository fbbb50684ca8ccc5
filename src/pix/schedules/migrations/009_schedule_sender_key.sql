-- The sender's own Pix key named by a scheduled Pix (optional): when the Pix is sent, the key's webhook is
-- notified of it, shaped by the key's `envio.webhook.notificacao` settings (docs/reports-schedules.md).
alter table pix_schedules add column chave text references pix_keys (chave);
