/**
 * Sandbox simulation (spec: Environments): a charge of 0.01 to 10.00 is paid by a fictitious payer a
 * moment after creation, through the same payment engine as every other Pix; above 10.00 it stays ATIVA.
 */
import type { Database } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../platform/outbox/jobs.ts';
import { amountDue, receiveOrHold } from '../pix/payments/engine.ts';
import { PaymentRefused } from '../pix/payments/refusal.ts';
import type { CobBody } from '../pix/cob/schemas.ts';
import type { CobVBody } from '../pix/cobv/schemas.ts';
import type { ChargeCreatedHook } from '../pix/charges/hooks.ts';
import { SANDBOX_AUTO_ORIGIN } from './payer.ts';

export const SANDBOX_AUTOPAY = {
  minCents: 1,
  maxCents: 1000,
  /** "A moment after creation": long enough for the creator to see the charge ATIVA first. */
  delayMs: 1000,
} as const;

type AutoPayment = { accountId: number; txid: string };

/** Registered by the sandbox's extension (./extension.ts) on the main worker. */
export const SANDBOX_AUTOPAY_TOPIC = defineTopic<AutoPayment>({
  name: 'sandbox.autopay',
  handler: ({ db, clock }) => autoPaymentHandler(db, clock),
});

export const FICTITIOUS_PAYER = { nome: 'Pagador Ficticio Sandbox', cpf: '11144477735' } as const;

export function qualifiesForAutoPayment(amountCents: number): boolean {
  return amountCents >= SANDBOX_AUTOPAY.minCents && amountCents <= SANDBOX_AUTOPAY.maxCents;
}

/** Spec, Environments: in the sandbox a charge of 0.01 to 10.00 is paid a moment later (batches' too). */
export const autoPaymentHook: ChargeCreatedHook = {
  appliesTo: (charge) => qualifiesForAutoPayment(charge.amountCents),
  async onCreated(sql, charge, now) {
    await enqueue(sql, {
      topic: SANDBOX_AUTOPAY_TOPIC,
      payload: { accountId: charge.accountId, txid: charge.txid },
      accountId: charge.accountId,
      availableAt: new Date(now.getTime() + SANDBOX_AUTOPAY.delayMs),
      now,
    });
  },
};

export function autoPaymentHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<AutoPayment>): Promise<JobOutcome> => {
    try {
      await db.tx(async (sql) => {
        const now = clock.forAccount(job.payload.accountId).now();
        const { rows } = await sql.query<{ kind: 'cob' | 'cobv'; amount_cents: number; body: CobBody | CobVBody }>(
          'select kind, amount_cents, body from charges where account_id = $1 and txid = $2',
          [job.payload.accountId, job.payload.txid],
        );
        if (!rows.length) return;
        const due = amountDue(rows[0], now);
        // A participant's charge is held for its confirmation like any Pix to its key.
        await receiveOrHold(sql, now, {
          target: { kind: 'charge', accountId: job.payload.accountId, txid: job.payload.txid },
          amountCents: due.cents,
          payer: FICTITIOUS_PAYER,
          origin: SANDBOX_AUTO_ORIGIN,
        });
      });
    } catch (error) {
      // Revised, removed, paid or expired meanwhile: the simulated payer simply does not pay.
      if (error instanceof PaymentRefused) return { giveUp: error.code };
      throw error;
    }
    return { done: true };
  };
}
