import type { Sql } from '../../platform/db/database.ts';
import { enqueue, type NewJob } from '../../platform/outbox/jobs.ts';
import { WEBHOOK_TOPICS } from '../webhook/events.ts';
import type { PixEventPayload } from '../webhook/payloads.ts';
import type { ReceivedPixRow, RefundRow } from './store.ts';
import { pixView } from './view.ts';

/**
 * The webhook event of a received Pix (or of a change to its refunds: the event then carries the whole
 * refunds array). Events of one charge share an ordering key, so they are delivered in order.
 * Whether a webhook is registered for the key is decided at delivery, by the webhook module — except by the
 * settlement statement, which stores the event of a key with no webhook already done (docs/webhooks.md,
 * "Events with no webhook").
 */
export async function enqueuePixEvent(sql: Sql, pix: ReceivedPixRow, refunds: RefundRow[], now: Date): Promise<void> {
  await enqueue(sql, pixEventJob(pix, refunds, now));
}

/** The job `enqueuePixEvent` writes, for a statement that writes it among other rows (the settlement). */
export function pixEventJob(
  pix: Omit<ReceivedPixRow, 'id'> & { id?: number },
  refunds: RefundRow[],
  now: Date,
): NewJob<PixEventPayload> {
  return {
    topic: WEBHOOK_TOPICS.pix,
    orderingKey: `pix:${pix.account_id}:${pix.charge_id ?? pix.end_to_end_id}`,
    payload: { accountId: pix.account_id, chave: pix.chave, txid: pix.txid, pix: [pixView(pix, refunds)] },
    accountId: pix.account_id,
    availableAt: now,
    now,
  };
}
