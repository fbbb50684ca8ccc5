/**
 * Sandbox simulation (spec: Environments): a charge of 0.01 to 10.00 is paid by a fictitious payer a
 * moment after creation, through the SPI boundary and the same payment engine as every other Pix; above 10.00
 * it stays ATIVA.
 */
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../platform/outbox/jobs.ts';
import { amountDue } from '../pix/payments/engine.ts';
import type { ChargeCreatedHook } from '../pix/charges/hooks.ts';
import type { SpiNode } from '../spi/credit.ts';
import { chargeToPay } from './pay-store.ts';
import { payerPays } from './spi-institution.ts';

export const SANDBOX_AUTOPAY = {
  minCents: 1,
  maxCents: 1000,
  /** "A moment after creation": long enough for the creator to see the charge ATIVA first. */
  delayMs: 1000,
} as const;

type AutoPayment = { accountId: number; txid: string };

/** Registered by the sandbox's extension (./extension.ts) on the main worker. */
export const SANDBOX_AUTOPAY_TOPIC = defineTopic<AutoPayment, SpiNode>({
  name: 'sandbox.autopay',
  handler: (ctx) => autoPaymentHandler(ctx),
});

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

/**
 * The fictitious payer pays the charge from its institution: a pacs.008 with the charge's key and txid into the
 * node's inbound path (spi-institution.ts), for the amount the charge asks now.
 */
export function autoPaymentHandler(ctx: SpiNode) {
  return async (job: OutboxJob<AutoPayment>): Promise<JobOutcome> => {
    const charge = await chargeToPay(ctx.db, job.payload);
    if (!charge) return { done: true };
    const now = ctx.clock.forAccount(charge.account_id).now();
    const order = {
      creditor: { chave: charge.chave },
      txid: charge.txid,
      initiation: 'QRDN' as const,
      amountCents: amountDue(charge, now).cents,
    };
    // A participant's charge is held for its confirmation like any Pix to its key.
    const outcome = await payerPays(ctx, order, now);
    // Revised, removed, paid or expired meanwhile: the simulated payer simply does not pay.
    if (outcome.status === 'RJCT') return { giveUp: outcome.credit?.refused.code ?? outcome.reason.code };
    return { done: true };
  };
}
