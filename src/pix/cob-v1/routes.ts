/** `POST /v1/cob`: the immediate charge in the wrapper format, with its own error names. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { ApiError, correlationId, responseTimeMs } from '../../platform/errors.ts';
import { callerOf } from '../shared/caller.ts';
import { CobView, V1CobCreate } from '../cob/schemas.ts';
import { createCob } from '../cob/service.ts';
import { txidTaken } from '../charges/store.ts';

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
        const caller = callerOf(ctx, request);
        const view = await ctx.db.tx(async (sql) => {
          const document = body.devedor?.cpf ?? body.devedor?.cnpj;
          if (
            document &&
            (await sql.query('select 1 from blocked_documents where documento = $1', [document])).rows.length
          ) {
            throw new ApiError(
              400,
              'documento_bloqueado',
              'O documento do devedor está bloqueado para novas cobranças.',
              [{ property: 'devedor', reason: 'documento bloqueado.', value: document }],
            );
          }
          if (txid && (await txidTaken(sql, caller.accountId, txid))) {
            throw new ApiError(409, 'txid_duplicado', `O txid ${txid} já foi utilizado.`, [
              { property: 'txid', reason: 'txid já utilizado.', value: txid },
            ]);
          }
          return createCob(sql, caller, txid, body);
        });
        return reply
          .status(201)
          .send({ ...view, responseTime: responseTimeMs(reply), correlationId: correlationId(request) });
      },
    );
  };
