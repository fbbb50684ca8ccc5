/**
 * The statement that settles recurring charges paid by their payers' pacs.008 (recurring-credit.ts): the charges'
 * settlement (src/pix/cobr/settlement-store.ts) gated by each message's claim, in one statement for many.
 */
import type { Sql } from '../platform/db/database.ts';
import {
  COBR_SETTLED,
  cobrSettlementCtes,
  cobrSettlementInput,
  cobrSettlementParams,
  cobrsSettled,
  type CobrSettlement,
} from '../pix/cobr/settlement-store.ts';

/** A recurring charge's settlement decided on its payer's pacs.008, with the message. */
export interface InboundRecurringCredit extends CobrSettlement {
  msgId: string;
  /** The pacs.002 ACSP recorded as the message's answer. */
  answer: string;
}

/**
 * Inbound pacs.008 of recurring charges settled in one statement, atomic by itself: each charge still the version
 * read and ATIVA is locked, its message claimed (MsgId, and its end-to-end id once) with its answer, and only a
 * claimed message's charge is settled — so a copy (its claim finds the first) or a charge changed since its read
 * writes nothing. Answers per message: the received Pix's id, or undefined (the caller decides it on the locked
 * path). The caller gives each charge at most once per call.
 */
export async function writeInboundRecurringCredits(
  sql: Sql,
  list: InboundRecurringCredit[],
): Promise<(number | undefined)[]> {
  const params = cobrSettlementParams(list);
  const { rows } = await sql.query<{ cobr_id: number; id: number }>(
    `with ${cobrSettlementInput([
      ['msg_id', 'text'],
      ['answer', 'text'],
    ])},
     charges as materialized (
       select c.id from recurring_charges c join input i on i.cobr_id = c.id
       where c.status = 'ATIVA' and c.xmin = i.version::xid for update of c),
     claim as (
       insert into spi_inbound (msg_id, kind, ref_id, account_id, received_at, answer)
       select i.msg_id, 'pacs.008', i.end_to_end_id, i.account_id, i.received_at, i.answer
       from input i join charges on charges.id = i.cobr_id
       on conflict do nothing returning msg_id),
     ${cobrSettlementCtes('input i join claim on claim.msg_id = i.msg_id')}
     ${COBR_SETTLED}`,
    [...params, list.map((c) => c.msgId), list.map((c) => c.answer)],
  );
  return cobrsSettled(sql, list, rows);
}
