/** `GET /v2/gn/pix/comprovantes`: the PDF receipt of a sent, received or refunded Pix (problem format). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';
import { IdEnvioParams } from '../send/schemas.ts';
import { Txid } from '../shared/schemas.ts';
import { receiptPdf } from './pdf.ts';
import { RECEIPT_INVALID, findReceipt } from './service.ts';

const ReceiptQuery = Type.Object(
  {
    e2eid: Type.Optional(Type.String({ pattern: END_TO_END_ID_PATTERN })),
    idEnvio: Type.Optional(IdEnvioParams.properties.idEnvio),
    rtrId: Type.Optional(Type.String({ pattern: END_TO_END_ID_PATTERN })),
    txid: Type.Optional(Txid),
  },
  { additionalProperties: false },
);

export const receiptRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v2/gn/pix/comprovantes',
      {
        config: { scope: 'pix.read', invalidRequest: RECEIPT_INVALID },
        schema: {
          tags: ['Pix enviados'],
          summary: 'The PDF receipt of a Pix sent, received or refunded, named by exactly one identifier',
          querystring: ReceiptQuery,
          response: {
            200: {
              description: 'The receipt (application/pdf).',
              // A Buffer is sent as it is (no serialisation); the document shows a string, as OpenAPI describes a file.
              content: {
                'application/pdf': { schema: Type.Unsafe<Buffer>({ type: 'string', description: 'A PDF document.' }) },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const receipt = await findReceipt(ctx.db, request.principal.accountId, request.query);
        const name = `comprovante-${receipt.endToEndId}.pdf`;
        return reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename="${name}"`)
          .header('cache-control', 'no-store')
          .send(await receiptPdf(receipt));
      },
    );
  };
