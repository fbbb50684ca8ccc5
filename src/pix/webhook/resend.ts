/**
 * `POST /v2/gn/webhook/reenviar` (spec: Events, Resend). Each named Pix gets one new webhook, one attempt,
 * never rescheduled. A Pix with refunds goes as ONE webhook carrying the whole refunds array, whether it
 * is named by its endToEndId or by a refund's rtrId. Only transactions from the start date on and at most
 * 30 days old (service clock) qualify. The request is all or nothing: any bad item refuses it, each named.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import { invalid, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { Caller } from '../shared/caller.ts';
import { findReceivedPix, refundsOf, type ReceivedPixRow } from '../received/store.ts';
import { pixView } from '../received/view.ts';
import { enqueuePixResend } from './events.ts';
import { isNotified, notificationSettings } from './notification.ts';
import type { ResendBody } from './schemas.ts';
import { findPixByReturnId, findPixWebhook } from './store.ts';

export const RESEND_INVALID = 'WebhookReenvioInvalido';
export const RESEND_STARTS_AT = new Date(LIMITS.webhookResendStartsAt);
const DAY_MS = 86_400_000;

interface Resolved {
  pix?: ReceivedPixRow;
  /** When the transaction named happened: the Pix, or the refund when named by its rtrId. */
  at?: Date;
}

async function resolve(sql: Sql, accountId: number, id: string): Promise<Resolved> {
  if (id.startsWith('D')) {
    const refund = await findPixByReturnId(sql, accountId, id);
    if (!refund) return {};
    const { rows } = await sql.query<ReceivedPixRow>('select * from received_pix where id = $1', [
      refund.received_pix_id,
    ]);
    return { pix: rows[0], at: refund.requested_at };
  }
  const pix = await findReceivedPix(sql, accountId, id);
  return { pix, at: pix?.received_at };
}

/** Why one item cannot be resent, or undefined. */
async function refusal(sql: Sql, caller: Caller, item: Resolved): Promise<string | undefined> {
  if (!item.pix || !item.at) return 'não corresponde a um Pix recebido nem a uma devolução desta conta.';
  if (item.at < RESEND_STARTS_AT) return `transação anterior a ${LIMITS.webhookResendStartsAt}, início do reenvio.`;
  if (caller.now.getTime() - item.at.getTime() > LIMITS.webhookResendWindowDays * DAY_MS)
    return `transação com mais de ${LIMITS.webhookResendWindowDays} dias.`;
  const chave = item.pix.chave;
  if (!chave || !isNotified(item.pix, await notificationSettings(sql, caller.accountId, chave)))
    return 'Pix sem txid não é notificado por webhook.';
  if (!(await findPixWebhook(sql, caller.accountId, chave))) return `nenhum webhook cadastrado para a chave ${chave}.`;
  return undefined;
}

export async function requestResend(db: Database, caller: Caller, body: ResendBody): Promise<{ reenvios: number }> {
  if (body.tipo !== 'PIX_RECEBIDO') {
    throw invalid(
      RESEND_INVALID,
      `Reenvio do tipo ${body.tipo} indisponível: este serviço só reenvia Pix recebidos (e suas devoluções).`,
      [{ property: 'tipo', reason: 'somente PIX_RECEBIDO.', value: body.tipo }],
    );
  }
  return db.tx(async (sql) => {
    const violations: Violation[] = [];
    const chosen = new Map<number, ReceivedPixRow>();
    for (const [index, id] of body.e2eids.entries()) {
      const item = await resolve(sql, caller.accountId, id);
      const reason = await refusal(sql, caller, item);
      if (reason) violations.push({ property: `e2eids[${index}]`, reason, value: id });
      else chosen.set(item.pix!.id, item.pix!);
    }
    if (violations.length)
      throw invalid(
        RESEND_INVALID,
        `${violations.length} de ${body.e2eids.length} e2eid(s) não podem ser reenviados.`,
        violations,
      );
    const pixRows = [...chosen.values()];
    const refunds = await refundsOf(
      sql,
      pixRows.map((p) => p.id),
    );
    for (const p of pixRows) {
      await enqueuePixResend(
        sql,
        { accountId: caller.accountId, chave: p.chave, txid: p.txid, pix: [pixView(p, refunds)] },
        caller.now,
      );
    }
    return { reenvios: pixRows.length };
  });
}
