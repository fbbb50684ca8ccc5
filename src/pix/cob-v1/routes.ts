/** `POST /v1/cob`: the immediate charge in the wrapper format, with its own error names. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { correlationId, responseTimeMs } from '../../platform/errors.ts';
import { callerOf } from '../shared/caller.ts';
import { CobView, V1CobCreate } from '../cob/schemas.ts';
import { createCobV1 } from './service.ts';

const V1CobResponse = Type.Intersect([
  CobView,
  Type.Object({ responseTime: Type.Number(), correlationId: Type.String() }),
]);

export const cobV1Routes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/v1/cob',
      {
        config: { scope: 'cob.write', rateLimited: true, invalidRequest: 'Validation Error' },
        schema: {
          tags: ['Cob'],
          summary: 'Create an immediate charge (wrapper format)',
          body: V1CobCreate,
          response: { 201: V1CobResponse },
        },
      },
      async (request, reply) => {
        const { txid, ...body } = request.body;
        const view = await createCobV1(ctx.db, callerOf(ctx, request), txid, body);
        return reply
          .status(201)
          .send({ ...view, responseTime: responseTimeMs(reply), correlationId: correlationId(request) });
      },
    );
  };
