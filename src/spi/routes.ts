/**
 * The SPI boundary's routes (docs/spi.md), in the operator family's error format, for one client only: the
 * institution's SPI gateway, known by its client certificate (pki.spiGateway; no token: the certificate is the
 * credential, as on the RSFN).
 *
 *   POST /spi/mensagens        the gateway delivers one message (XML); pixd answers (pacs.002 / admi.002 / 204)
 *   GET  /spi/saida            the outbound queue, oldest first, from after `depois` (what is not acknowledged)
 *   POST /spi/saida/confirmar  the gateway acknowledges what it took: `{"ids": [...]}`
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { clientCertificateSha256 } from '../platform/auth/guard.ts';
import { certificateSha256 } from '../platform/pki.ts';
import { LIMITS } from '../platform/limits.ts';
import { receiveSpiMessage } from './inbound.ts';
import { ackOutbound, pendingOutbound } from './store.ts';

const schema = { tags: ['SPI'], hide: true };
const XML = 'application/xml; charset=utf-8';

export const spiRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const gateway = certificateSha256(ctx.pki.spiGateway.certPem);
    app.addHook('onRequest', async (request: FastifyRequest) => {
      if (clientCertificateSha256(request) !== gateway)
        throw new ApiError(401, 'nao_autorizado', 'Apenas o gateway SPI desta instituição, com seu certificado.');
    });
    for (const type of ['application/xml', 'text/xml'])
      app.addContentTypeParser(
        type,
        { parseAs: 'string', bodyLimit: LIMITS.spiMessageMaxBytes },
        (_request, body, done) => done(null, body),
      );

    app.post('/spi/mensagens', { schema: { ...schema, body: Type.String() } }, async (request, reply) => {
      const answer = await receiveSpiMessage(ctx, request.body);
      reply.code(answer.status);
      if (answer.xml === undefined) return reply.send();
      return reply.type(XML).send(answer.xml);
    });

    app.get(
      '/spi/saida',
      { schema: { ...schema, querystring: Type.Object({ depois: Type.Optional(Type.Integer({ minimum: 0 })) }) } },
      async (request) => {
        const rows = await pendingOutbound(ctx.db, request.query.depois ?? 0, LIMITS.spiOutboundPullMax);
        return {
          mensagens: rows.map((row) => ({ id: Number(row.id), tipo: row.kind, msgId: row.msg_id, xml: row.xml })),
        };
      },
    );

    app.post(
      '/spi/saida/confirmar',
      {
        schema: {
          ...schema,
          body: Type.Object(
            { ids: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: LIMITS.spiOutboundPullMax }) },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => ({ confirmadas: await ackOutbound(ctx.db, request.body.ids, ctx.clock.now()) }),
    );
  };
