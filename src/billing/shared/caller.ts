import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { FaultHooks } from '../../platform/faults.ts';

/** Who calls a billing service: the account, its clock's now, and the addresses its answers name. */
export interface BillingCaller {
  accountId: number;
  now: Date;
  /** Faults on demand (sandbox only, docs/faults.md): a card refused with the code the account chose. */
  faults?: FaultHooks;
  /** The pages listener's origin: `checkout_url` and a boleto's link are pages a payer opens (no certificate asked). */
  pagesUrl: string;
  /** The public origin: a boleto's Pix QR names a location there. Needed only to issue boletos. */
  publicUrl?: string;
}

/** The caller of a billing route: the token's account on its own clock. */
export const billingCallerOf = (ctx: AppContext, request: FastifyRequest): BillingCaller => ({
  accountId: request.principal.accountId,
  now: ctx.clock.forAccount(request.principal.accountId).now(),
  pagesUrl: ctx.pages.url,
  publicUrl: ctx.config.publicUrl,
  faults: ctx.faults,
});
