import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { callerOf, type Caller } from '../pix/shared/caller.ts';

/**
 * The caller of a request that sends the payer to a page (redirectURI): that page is on the pages listener,
 * which asks the browser for no certificate, so links built for it use the pages address.
 */
export const payerFacingCallerOf = (ctx: AppContext, request: FastifyRequest): Caller => ({
  ...callerOf(ctx, request),
  publicUrl: ctx.pages.url,
});
