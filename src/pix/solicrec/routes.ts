import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { SolicRecCompleta, SolicRecCreate, SolicRecIdParams, SolicRecPatch } from './schemas.ts';
import { SOLICREC_INVALID, cancelSolicRec, createSolicRec, readSolicRec } from './service.ts';

const write = { scope: 'solicrec.write', invalidRequest: SOLICREC_INVALID, propertyRoot: 'solicrec' } as const;
const read = { scope: 'solicrec.read' } as const;
const tags = ['SolicRec'];

export const solicRecRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/solicrec',
      {
        config: { ...write, rateLimited: true },
        schema: {
          tags,
          summary: "Ask the payer's institution to confirm a recurrence",
          body: SolicRecCreate,
          response: { 201: SolicRecCompleta },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) => createSolicRec(sql, callerOf(ctx, request), request.body));
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/solicrec/:idSolicRec',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a request to confirm a recurrence',
          params: SolicRecIdParams,
          response: { 200: SolicRecCompleta },
        },
      },
      async (request) => readSolicRec(ctx.db, callerOf(ctx, request), request.params.idSolicRec),
    );

    app.patch(
      '/v2/solicrec/:idSolicRec',
      {
        config: write,
        schema: {
          tags,
          summary: 'Cancel an open request to confirm a recurrence',
          params: SolicRecIdParams,
          body: SolicRecPatch,
          // 201, as Bacen declares for this PATCH (the interface is silent).
          response: { 201: SolicRecCompleta },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) => cancelSolicRec(sql, callerOf(ctx, request), request.params.idSolicRec));
        return reply.status(201).send(view);
      },
    );
  };
