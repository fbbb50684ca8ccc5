import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';

export interface Caller {
  accountId: number;
  now: Date;
  publicUrl: string;
  /** Sandbox simulations (auto-settlement of small charges) apply. */
  sandbox: boolean;
}

/** The authenticated account, the service's "now" and its public address: what every service call needs. */
export function callerOf(ctx: AppContext, request: FastifyRequest): Caller {
  return {
    accountId: request.principal.accountId,
    now: ctx.clock.now(),
    publicUrl: ctx.config.publicUrl,
    sandbox: ctx.config.environment === 'sandbox',
  };
}
