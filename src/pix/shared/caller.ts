import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { ChargeCreatedHook } from '../charges/hooks.ts';

export interface Caller {
  accountId: number;
  now: Date;
  publicUrl: string;
  /** What else runs when this caller creates a charge (the sandbox's fictitious payer, if mounted). */
  chargeCreated: readonly ChargeCreatedHook[];
}

/** The authenticated account, its "now" (its own clock) and the public address: what every service call needs. */
export function callerOf(ctx: AppContext, request: FastifyRequest): Caller {
  return {
    accountId: request.principal.accountId,
    now: ctx.clock.forAccount(request.principal.accountId).now(),
    publicUrl: ctx.config.publicUrl,
    chargeCreated: ctx.chargeCreatedHooks,
  };
}
