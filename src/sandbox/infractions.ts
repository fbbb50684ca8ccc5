/**
 * Sandbox: the payer's side of MED. Opens an infraction against a Pix the caller received (blocking the
 * amount) and decides a contested one. The lifecycle itself is in src/pix/infractions (docs/infractions.md).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../platform/context.ts';
import { callerOf } from '../pix/shared/caller.ts';
import { DecideRequest, InfractionParams, InfractionView, OpenRequest } from '../pix/infractions/schemas.ts';
import { INFRACTION_INVALID, decide, openInfraction } from '../pix/infractions/service.ts';

const tags = ['Sandbox'];

export const sandboxInfractionRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/sandbox/infracoes',
      {
        config: { invalidRequest: INFRACTION_INVALID },
        schema: {
          tags,
          summary: 'Open a MED infraction against a Pix this account received (sandbox); blocks its amount',
          body: OpenRequest,
          response: { 201: InfractionView },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await ctx.db.tx((sql) => openInfraction(sql, callerOf(ctx, request), request.body))),
    );
    app.post(
      '/sandbox/infracoes/:idInfracao/decidir',
      {
        config: { invalidRequest: INFRACTION_INVALID },
        schema: {
          tags,
          summary: 'Decide a contested infraction (sandbox): upheld refunds the payer, not upheld releases the block',
          params: InfractionParams,
          body: DecideRequest,
          response: { 200: InfractionView },
        },
      },
      async (request) =>
        ctx.db.tx((sql) => decide(sql, callerOf(ctx, request), request.params.idInfracao, request.body.procedente)),
    );
  };
