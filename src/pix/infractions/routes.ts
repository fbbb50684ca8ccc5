/** MED infractions: the list and the defence (problem format, as the SDK's medList/medDefense document). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { DefenceRequest, InfractionList, InfractionListQuery, InfractionParams, InfractionView } from './schemas.ts';
import {
  INFRACTION_DEADLINE_TOPIC,
  INFRACTION_INVALID,
  defend,
  infractionDeadlineHandler,
  listInfractionsOf,
} from './service.ts';

const tags = ['Infrações MED'];

export const infractionRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v2/gn/infracoes',
      {
        config: { scope: 'gn.infractions.read', invalidRequest: 'InfracaoConsultaInvalida' },
        schema: {
          tags,
          summary: 'List the MED infractions against Pix this account received',
          querystring: InfractionListQuery,
          response: { 200: InfractionList },
        },
      },
      async (request) => listInfractionsOf(ctx.db, callerOf(ctx, request), request.query),
    );

    app.post(
      '/v2/gn/infracoes/:idInfracao/defesa',
      {
        config: { scope: 'gn.infractions.write', rateLimited: true, invalidRequest: INFRACTION_INVALID },
        schema: {
          tags,
          summary: 'Defend an infraction once, while ABERTA and before its deadline (aceito refunds the payer at once)',
          params: InfractionParams,
          body: DefenceRequest,
          response: { 201: InfractionView },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) =>
          defend(sql, callerOf(ctx, request), request.params.idInfracao, request.body),
        );
        return reply.status(201).send(view);
      },
    );
  };
