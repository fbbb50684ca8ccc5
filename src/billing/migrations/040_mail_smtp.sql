-- The SMTP sender (src/billing/mail/delivery.ts) counts its attempts on the e-mail's row.
alter table mail_outbox add column attempts integer not null default 0;
