/**
 * The webhook event of a Pix this account sent (a scheduled Pix that finished), Efí-style: one `webhook.pix`
 * event for the sender's key named by the schedule, written in the transaction that debits the ledger. The
 * element carries everything the key's `envio.webhook.notificacao` settings may show; what is shown is
 * decided at delivery (src/pix/webhook/notification.ts), like the receiving side.
 */
import type { Sql } from '../../platform/db/database.ts';
import { formatAmount } from '../../platform/money.ts';
import { enqueue } from '../../platform/outbox/outbox.ts';
import { PIX_EVENT_TOPIC } from '../received/events.ts';
import type { PixEventPayload } from '../webhook/events.ts';
import type { ScheduleRow } from './store.ts';

/** The receiver as the schedule knows it, in the creation body's shape. */
export type SentPixFavorecido = { nome: string } & (
  | { chave: string }
  | { contaBanco: { ispb: string; agencia: string; conta: string } }
);

/** A sent Pix in a webhook: Bacen `Pix` fields that apply to a sent Pix, plus Efí's `gnExtras`. */
export interface SentPixView {
  endToEndId: string;
  valor: string;
  horario: string;
  /** The sender's own key (whose webhook this is). */
  chave: string;
  /** Sends through the API (src/pix/send) report their outcome; a finished scheduled Pix carries none. */
  status?: 'REALIZADO' | 'NAO_REALIZADO' | 'EM_PROCESSAMENTO';
  /** Efí's extension: the receiver, and for API sends their idEnvio and, when refused, why. */
  gnExtras: { favorecido: SentPixFavorecido; idEnvio?: string; erro?: { motivo: string } };
}

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
    topic: PIX_EVENT_TOPIC,
    payload,
    availableAt: sentAt,
    now: sentAt,
  });
}
