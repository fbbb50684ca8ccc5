import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { Detail, DetailRequest, StaticCreate, StaticView } from './schemas.ts';
import { createStaticQrCode, detailQrCode } from './service.ts';

const tags = ['QR codes'];

export const qrcodeRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    // cob.write: a static code is a standing request for payment to one of the caller's keys (docs/payload.md).
    app.post(
      '/v2/gn/qrcodes/estatico',
      {
        config: { scope: 'cob.write', rateLimited: true },
        schema: {
          tags,
          summary: "Static BR code (and QR image) for one of the caller's keys",
          body: StaticCreate,
          response: { 201: StaticView },
        },
      },
      async (request, reply) => {
        const view = await createStaticQrCode(ctx.db, callerOf(ctx, request), request.body);
        return reply.status(201).send(view);
      },
    );

    app.post(
      '/v2/gn/qrcodes/detalhar',
      {
        config: { scope: 'cob.read', rateLimited: true },
        schema: {
          tags,
          summary: 'Decode a BR code: static fields, or the payload a dynamic code serves',
          body: DetailRequest,
          response: { 200: Detail },
        },
      },
      async (request) => detailQrCode(ctx.db, callerOf(ctx, request), request.body),
    );
  };
