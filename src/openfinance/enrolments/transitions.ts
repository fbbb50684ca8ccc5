/**
 * An enrolment's status changes and what each one causes in the same transaction: the callback to the
 * application, and on approval its first payment (`primeiroPagamento`). The consent link's expiry is an outbox
 * job at the link's deadline on the account's clock.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import { brasiliaDayStart, fromEpochDay, toEpochDay } from '../../platform/calendar.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { EXPIRED_LINK_REASON } from '../consent/journey.ts';
import { enqueueOfCallback } from '../events.ts';
import type { EnrolmentStatus } from '../shared.ts';
import { setEnrolmentStatus, findEnrolment, type EnrolmentRow } from './store.ts';

type ExpiryJob = { enrolmentId: number };

export const CONSENT_EXPIRY_TOPIC = defineTopic<ExpiryJob>({
  name: 'of.consent.expire',
  handler: ({ db, clock }) => expiryHandler(db, clock),
});

/** An authorised enrolment ends the day after its `expiracao` (00:00 Brasília): `finalizado`. */
export const ENROLMENT_END_TOPIC = defineTopic<ExpiryJob>({
  name: 'of.enrolment.finish',
  handler: ({ db, clock }) => finishHandler(db, clock),
});

export const FINISHED_REASON = 'A adesão chegou à data de expiração.';

export function enqueueEnrolmentEnd(sql: Sql, row: EnrolmentRow, now: Date) {
  const dayAfter = fromEpochDay(toEpochDay(row.body.assinatura.expiracao) + 1);
  return enqueue(sql, {
    topic: ENROLMENT_END_TOPIC,
    payload: { enrolmentId: row.id },
    accountId: row.account_id,
    availableAt: brasiliaDayStart(dayAfter),
    now,
  });
}

export function enqueueConsentExpiry(sql: Sql, row: EnrolmentRow, now: Date) {
  return enqueue(sql, {
    topic: CONSENT_EXPIRY_TOPIC,
    payload: { enrolmentId: row.id },
    accountId: row.account_id,
    availableAt: row.consent_expires_at,
    now,
  });
}

/** The allowed moves; anything else is a caller's mistake (asserted, never silently applied). */
const MOVES: Record<EnrolmentStatus, readonly EnrolmentStatus[]> = {
  pendente: ['autorizado', 'rejeitado', 'revogado'],
  autorizado: ['revogado', 'finalizado'],
  rejeitado: [],
  revogado: [],
  finalizado: [],
};

export async function moveEnrolment(
  sql: Sql,
  row: EnrolmentRow,
  status: EnrolmentStatus,
  motivo: string | null,
  now: Date,
): Promise<EnrolmentRow> {
  if (!MOVES[row.status].includes(status))
    throw new Error(`enrolment ${row.identificador}: ${row.status} -> ${status}`);
  const moved = await setEnrolmentStatus(sql, row.id, status, motivo, now);
  if (status === 'autorizado') await enqueueEnrolmentEnd(sql, moved, now);
  await enqueueOfCallback(
    sql,
    row.account_id,
    {
      tipo: 'adesao',
      identificadorAdesao: row.identificador,
      ...(row.id_proprio !== null && { idProprio: row.id_proprio }),
      status,
      ...(motivo !== null && { motivo }),
      data: now.toISOString(),
    },
    now,
  );
  return moved;
}

/** A link past its deadline whose job has not run yet is expired all the same: the clock decides. */
export async function expireIfDue(sql: Sql, row: EnrolmentRow, now: Date): Promise<EnrolmentRow> {
  if (row.status !== 'pendente' || now < row.consent_expires_at) return row;
  return moveEnrolment(sql, row, 'rejeitado', EXPIRED_LINK_REASON, now);
}

function finishHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<ExpiryJob>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const row = await findEnrolment(sql, { id: job.payload.enrolmentId }, true);
      if (row?.status !== 'autorizado') return;
      await moveEnrolment(sql, row, 'finalizado', FINISHED_REASON, clock.forAccount(row.account_id).now());
    });
    return { done: true };
  };
}

function expiryHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<ExpiryJob>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const row = await findEnrolment(sql, { id: job.payload.enrolmentId }, true);
      if (!row) return;
      await expireIfDue(sql, row, clock.forAccount(row.account_id).now());
    });
    return { done: true };
  };
}
