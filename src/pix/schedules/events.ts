/**
 * The webhook event of a Pix this account sent (a scheduled Pix that finished), Efí-style: one `webhook.pix`
 * event for the sender's key named by the schedule, written in the transaction that debits the ledger. The
 * element carries everything the key's `envio.webhook.notificacao` settings may show; what is shown is
 * decided at delivery (src/pix/webhook/notification.ts), like the receiving side.
 */
import type { Sql } from '../../platform/db/database.ts';
import { formatAmount } from '../../platform/money.ts';
import { enqueue } from '../../platform/outbox/jobs.ts';
import { WEBHOOK_TOPICS } from '../webhook/events.ts';
import type { PixEventPayload, SentPixFavorecido, SentPixView } from '../webhook/payloads.ts';
import type { ScheduleRow } from './store.ts';

function favorecidoOf(s: ScheduleRow): SentPixFavorecido {
  if (s.destination === 'chave') return { nome: s.receiver_name, chave: s.end_user_account };
  const [ispb, agencia, conta] = s.end_user_account.split('/');
  return { nome: s.receiver_name, contaBanco: { ispb, agencia, conta } };
}

export function sentPixView(s: ScheduleRow & { chave: string }, sentAt: Date): SentPixView {
  return {
    endToEndId: s.end_to_end_id,
    valor: formatAmount(s.amount_cents),
    horario: sentAt.toISOString(),
    chave: s.chave,
    gnExtras: { favorecido: favorecidoOf(s) },
  };
}

/** Once per schedule (the scheduler acts on `waiting` only once), so no ordering key is needed. */
export async function enqueueSentPixEvent(sql: Sql, s: ScheduleRow & { chave: string }, sentAt: Date): Promise<void> {
  const payload: PixEventPayload = {
    accountId: s.account_id,
    chave: s.chave,
    txid: s.txid,
    envio: true,
    pix: [sentPixView(s, sentAt)],
  };
  await enqueue(sql, {
    topic: WEBHOOK_TOPICS.pix,
    payload,
    accountId: s.account_id,
    availableAt: sentAt,
    now: sentAt,
  });
}
