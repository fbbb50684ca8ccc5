/**
 * A pacs.008 to a key whose participant must confirm (docs/spi.md, "A Pix that waits for a participant"): the
 * engine holds it WAITING and the gateway's delivery is answered 202 with no pacs.002; when the participant
 * decides (or its time runs out) the payer's institution is told in the deciding transaction
 * (`PayerInstitution.heldPixDecided`), and this is the production one's answer: the pacs.002 — ACSP with the
 * credit, or RJCT with the catalog's code — recorded as the message's answer (a copy now gets it at once) and
 * queued on the outbound queue for the gateway to relay, as the SPI takes a receiver's pacs.002: a message of
 * its own, not a reply in the same exchange.
 */
import type { Sql } from '../platform/db/database.ts';
import type { HeldPixDecision } from '../platform/extensions.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { buildStatusReport, newMsgId } from './messages.ts';
import { inboundCreditMsgId, insertOutbound, setInboundAnswer } from './store.ts';

/** The catalog's reason codes for the engine's refusals (AddtlInf carries the engine's message). */
const REASON_OF_REFUSAL: Record<string, string> = {
  chave_inexistente: 'AC03',
  conta_inexistente: 'AC03',
  cobranca_inexistente: 'AC03',
  chave_removida: 'AC07',
  cobranca_removida: 'AC07',
  cobranca_expirada: 'AC07',
  valor_divergente: 'AM09',
  valor_invalido: 'AM09',
  cobranca_paga: 'AM05',
  pix_duplicado: 'AM05',
};

/**
 * A refusal's code in the catalog's terms: the engine's named refusals mapped; a code already of the catalog's
 * shape (a participant's RJCT, the timeout's AB03) as given; anything else (the receiver's settings) AG03.
 */
export function catalogReason(code: string): string {
  return REASON_OF_REFUSAL[code] ?? (/^[A-Z]{2}[0-9]{2}$/.test(code) ? code : 'AG03');
}

export async function answerHeldPix(sql: Sql, decision: HeldPixDecision, now: Date): Promise<void> {
  if (decision.origin !== 'spi') return;
  const originalMsgId = await inboundCreditMsgId(sql, decision.endToEndId);
  if (!originalMsgId) return;
  const msgId = newMsgId(RECEIVER_ISPB);
  const base = {
    msgId,
    createdAt: now,
    originalMsgId,
    originalMsgName: 'pacs.008.spi.1.13',
    originalId: decision.endToEndId,
  } as const;
  const reason = decision.error ?? { code: 'AG03', reason: 'Recusado pelo participante recebedor.' };
  const xml =
    decision.status === 'ACSP'
      ? buildStatusReport({ ...base, status: 'ACSP', settledAt: now })
      : buildStatusReport({
          ...base,
          status: 'RJCT',
          reason: { code: catalogReason(reason.code), info: reason.reason },
        });
  await setInboundAnswer(sql, originalMsgId, xml);
  await insertOutbound(sql, {
    account_id: decision.accountId,
    kind: 'pacs.002',
    msg_id: msgId,
    ref_id: decision.endToEndId,
    sent_pix_id: null,
    refund_id: null,
    xml,
    created_at: now,
  });
}
