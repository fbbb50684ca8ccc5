/**
 * `POST /v1/pix/confirm` and the timeout: the participant's decision on Pix held for it (payments/holds.ts).
 *
 *   ACSP     a Pix paid from outside pixd (the sandbox payer) goes through the engine now: credited, reported,
 *            notified; a transfer from another pixd account is settled by its send's settlement job, enqueued
 *            here, which finds the decision (the item answers WAITING until then)
 *   RJCT     nothing was credited: a transfer's settlement returns the held amount to its sender; a Pix from
 *            outside never left its payer's institution (the SPI settles only after the receiver's ACSP)
 *   timeout  as RJCT, on the receiving account's clock, when the participant has not decided in time
 *            (the `pix.confirmation.expire` job, payments/holds.ts; a call after the deadline finds it expired)
 *
 * Each item is decided in its own transaction, so one item's failure (unknown id, decided already, a charge
 * paid meanwhile) is reported for that item and the others go on.
 */
import type { Database } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { invalid, GENERIC_INVALID } from '../../platform/errors.ts';
import { enqueue } from '../../platform/outbox/jobs.ts';
import { receiveOrHold } from '../payments/engine.ts';
import { PaymentRefused } from '../payments/refusal.ts';
import { decideConfirmation, expireConfirmation, findConfirmation, type ConfirmationRow } from '../payments/holds.ts';
import { SEND_SETTLE_TOPIC } from '../send/settlement.ts';
import { findSentByE2e } from '../send/store.ts';
import type { PayerInstitution } from '../../platform/extensions.ts';
import type { Sql } from '../../platform/db/database.ts';
import type { ConfirmItemResult, ConfirmRequest } from './schemas.ts';

type Item = ConfirmRequest['pix'][number];

/** The spec's rule the schema cannot say: RJCT carries an error. Any item breaking it refuses the whole call. */
export function confirmViolations(body: ConfirmRequest) {
  return body.pix.flatMap((item, i) =>
    item.status === 'RJCT' && !item.error
      ? [{ property: `pix.${i}.error`, reason: 'obrigatório quando status é RJCT.' }]
      : [],
  );
}

/** A decided transfer: its send's settlement runs again and finds the decision. True when one was enqueued. */
async function resettleTransfer(sql: Sql, row: ConfirmationRow, now: Date): Promise<boolean> {
  if (row.incoming.origin !== 'pixd_transfer') return false;
  const { rows } = await sql.query<{ account_id: number }>('select account_id from sent_pix where end_to_end_id = $1', [
    row.end_to_end_id,
  ]);
  const sent = rows[0] && (await findSentByE2e(sql, rows[0].account_id, row.end_to_end_id));
  if (!sent) return false;
  await enqueue(sql, {
    topic: SEND_SETTLE_TOPIC,
    payload: { sentPixId: sent.id },
    accountId: sent.account_id,
    availableAt: now,
    now,
  });
  return true;
}

async function decideOne(
  db: Database,
  clock: Clock,
  payer: PayerInstitution,
  accountId: number,
  item: Item,
): Promise<ConfirmItemResult> {
  const base = { endToEndId: item.endToEndId, status: item.status };
  let refusal: PaymentRefused | undefined;
  let result: ConfirmItemResult | undefined;
  try {
    result = await db.tx(async (sql) => {
      const row = await findConfirmation(sql, item.endToEndId, 'for update');
      if (!row || Number(row.account_id) !== accountId)
        return { ...base, result: 'NOT_FOUND', detail: 'Nenhum Pix aguarda confirmação com este endToEndId.' };
      const now = clock.forAccount(accountId).now();
      if (row.status === 'WAITING' && now >= row.deadline_at) {
        // Past its deadline, its timeout job not run yet: the clock decides, as the job would.
        await expire(sql, payer, row, now);
        return { ...base, status: 'EXPIRED', result: 'ALREADY_DECIDED', detail: 'O prazo de confirmação expirou.' };
      }
      if (row.status !== 'WAITING')
        return { ...base, status: row.status, result: 'ALREADY_DECIDED', detail: `Já decidido: ${row.status}.` };
      await decideConfirmation(sql, payer, row.end_to_end_id, item.status, item.error ?? null, now);
      if (await resettleTransfer(sql, row, now)) return { ...base, result: 'WAITING' };
      if (item.status === 'ACSP') await receiveOrHold(sql, now, row.incoming);
      return { ...base, result: 'PROCESSED' };
    });
  } catch (error) {
    if (!(error instanceof PaymentRefused)) throw error;
    refusal = error;
  }
  if (result) return result;
  // Accepted, but the engine refused it (the charge paid or removed meanwhile): nothing credited, recorded as returned.
  const refused = refusal!;
  await db.tx(async (sql) =>
    decideConfirmation(
      sql,
      payer,
      item.endToEndId,
      'RJCT',
      { code: refused.code, reason: refused.message },
      clock.forAccount(accountId).now(),
    ),
  );
  return { ...base, result: 'REFUSED', detail: refused.message };
}

export async function confirmPix(
  db: Database,
  clock: Clock,
  payer: PayerInstitution,
  accountId: number,
  body: ConfirmRequest,
): Promise<{ status: 'WAITING' | 'PROCESSED'; pix: ConfirmItemResult[] }> {
  const violations = confirmViolations(body);
  if (violations.length) throw invalid(GENERIC_INVALID.wrapper, 'RJCT exige error {code, reason}.', violations);
  const results: ConfirmItemResult[] = [];
  const seen = new Set<string>();
  for (const item of body.pix) {
    if (seen.has(item.endToEndId)) {
      const repeated = 'Repetido nesta chamada.';
      results.push({ endToEndId: item.endToEndId, status: item.status, result: 'ALREADY_DECIDED', detail: repeated });
      continue;
    }
    seen.add(item.endToEndId);
    results.push(await decideOne(db, clock, payer, accountId, item));
  }
  return { status: results.some((r) => r.result === 'WAITING') ? 'WAITING' : 'PROCESSED', pix: results };
}

/** Rejected by the clock: a transfer's settlement returns it now rather than at its own retry. */
async function expire(sql: Sql, payer: PayerInstitution, row: ConfirmationRow, now: Date): Promise<void> {
  if (await expireConfirmation(sql, payer, row.end_to_end_id, now)) await resettleTransfer(sql, row, now);
}
