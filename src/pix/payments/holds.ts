/**
 * Incoming Pix held for the receiving participant's confirmation (docs/participants.md). A key registered by an
 * indirect participant (`POST /dict/entries`) carries `confirm_incoming`: the engine does not credit a Pix to it,
 * it records the Pix `WAITING` here and returns. The participant's decision (`POST /v1/pix/confirm`) or the
 * timeout changes the row, then the Pix goes through the engine again: on ACSP the engine finds the decision and
 * credits it as any payment; on RJCT or EXPIRED it refuses, and whoever sent it takes it back. This is the SPI's
 * order: nothing is settled before the receiving participant's pacs.002.
 *
 * The timeout needs no engine: nothing was credited, so rejecting a Pix from outside pixd is its status alone; a
 * transfer from another pixd account is returned by its send's settlement job, which waits for the same deadline
 * (send/settlement.ts) and, like the engine, reads a Pix still WAITING past it as expired.
 */
import type { AppContext } from '../../platform/context.ts';
import type { Sql } from '../../platform/db/database.ts';
import type { PayerInstitution } from '../../platform/extensions.ts';
import { defineTopic, enqueue } from '../../platform/outbox/jobs.ts';
import { LIMITS } from '../../platform/limits.ts';
import type { IncomingPix } from './types.ts';

export type ConfirmationStatus = 'WAITING' | 'ACSP' | 'RJCT' | 'EXPIRED';

export interface ConfirmationRow {
  end_to_end_id: string;
  account_id: number;
  chave: string;
  amount_cents: number;
  incoming: IncomingPix;
  status: ConfirmationStatus;
  received_at: Date;
  deadline_at: Date;
  decided_at: Date | null;
  error: { code: string; reason: string } | null;
}

/** What the engine answers for a Pix it held instead of crediting. */
export interface HeldPix {
  endToEndId: string;
  accountId: number;
  chave: string;
  amountCents: number;
  receivedAt: Date;
  /** When it is rejected unless decided, on the receiving account's clock. */
  deadlineAt: Date;
}

/** The timeout's decision. */
export const CONFIRMATION_TIMEOUT_ERROR = {
  code: 'AB03',
  reason: 'Prazo de confirmação do participante recebedor expirado.',
} as const;

/** The timeout of a held Pix, on the receiving account's clock: rejects it if still WAITING. */
export const CONFIRMATION_EXPIRY_TOPIC = defineTopic<{ endToEndId: string }, AppContext>({
  name: 'pix.confirmation.expire',
  handler:
    ({ db, clock, payerInstitution }) =>
    async (job) => {
      await db.tx(async (sql) => {
        const row = await findConfirmation(sql, job.payload.endToEndId, 'for update');
        if (row?.status !== 'WAITING') return;
        const now = clock.forAccount(Number(row.account_id)).now();
        if (now >= row.deadline_at) await expireConfirmation(sql, payerInstitution, row.end_to_end_id, now);
      });
      return { done: true };
    },
});

export async function expireConfirmation(
  sql: Sql,
  payer: PayerInstitution,
  endToEndId: string,
  now: Date,
): Promise<boolean> {
  return decideConfirmation(sql, payer, endToEndId, 'EXPIRED', CONFIRMATION_TIMEOUT_ERROR, now);
}

const COLUMNS = `end_to_end_id, account_id, chave, amount_cents, incoming, status, received_at, deadline_at, decided_at, error`;

export async function findConfirmation(
  sql: Sql,
  endToEndId: string,
  lock: 'for update' | '' = '',
): Promise<ConfirmationRow | undefined> {
  const { rows } = await sql.query<ConfirmationRow>(
    `select ${COLUMNS} from pix_confirmations where end_to_end_id = $1 ${lock}`,
    [endToEndId],
  );
  return rows[0];
}

/**
 * Records the Pix WAITING and enqueues its timeout. A second arrival of the same end-to-end id (a settlement job
 * run twice) finds the row and holds again without writing.
 */
export async function holdPix(
  sql: Sql,
  now: Date,
  incoming: IncomingPix & { endToEndId: string; amountCents: number },
  to: { accountId: number; chave: string },
): Promise<HeldPix> {
  const deadline = new Date(now.getTime() + LIMITS.participantConfirmationTimeoutSeconds * 1000);
  const { rowCount } = await sql.query(
    `insert into pix_confirmations (end_to_end_id, account_id, chave, amount_cents, incoming, status, received_at, deadline_at)
     values ($1, $2, $3, $4, $5, 'WAITING', $6, $7) on conflict (end_to_end_id) do nothing`,
    [incoming.endToEndId, to.accountId, to.chave, incoming.amountCents, JSON.stringify(incoming), now, deadline],
  );
  if (rowCount === 1)
    await enqueue(sql, {
      topic: CONFIRMATION_EXPIRY_TOPIC,
      payload: { endToEndId: incoming.endToEndId },
      accountId: to.accountId,
      availableAt: deadline,
      now,
    });
  const row = rowCount === 1 ? undefined : await findConfirmation(sql, incoming.endToEndId);
  return {
    endToEndId: incoming.endToEndId,
    accountId: to.accountId,
    chave: to.chave,
    amountCents: incoming.amountCents,
    receivedAt: row?.received_at ?? now,
    deadlineAt: row?.deadline_at ?? deadline,
  };
}

/**
 * Decides a WAITING Pix and tells its payer's institution in the same transaction (`heldPixDecided`: the SPI
 * boundary answers the pacs.008 that delivered it). False when it was not WAITING (the first decision stands).
 */
export async function decideConfirmation(
  sql: Sql,
  payer: PayerInstitution,
  endToEndId: string,
  status: Exclude<ConfirmationStatus, 'WAITING'>,
  error: { code: string; reason: string } | null,
  now: Date,
): Promise<boolean> {
  const { rows } = await sql.query<{ account_id: number; origin: string }>(
    `update pix_confirmations set status = $2, error = $3, decided_at = $4 where end_to_end_id = $1 and status = 'WAITING'
     returning account_id, incoming->>'origin' as origin`,
    [endToEndId, status, error && JSON.stringify(error), now],
  );
  if (!rows[0]) return false;
  const decided = status === 'ACSP' ? 'ACSP' : 'RJCT';
  const { account_id, origin } = rows[0];
  await payer.heldPixDecided(sql, { endToEndId, accountId: Number(account_id), origin, status: decided, error }, now);
  return true;
}
