import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { LocCompleta, LocCreate, LocIdParams, LocList, LocListQuery, LocQrCode } from './schemas.ts';
import { LOC_INVALID, LOC_QUERY_INVALID, createLoc, listLocs, locQrCode, readLoc, unlinkLoc } from './service.ts';

const write = { scope: 'payloadlocation.write', invalidRequest: LOC_INVALID, propertyRoot: 'loc' } as const;
const read = { scope: 'payloadlocation.read', invalidRequest: LOC_QUERY_INVALID } as const;
const tags = ['Loc'];

export const locRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/loc',
      {
        config: { ...write, rateLimited: true },
        schema: { tags, summary: 'Create a payload location', body: LocCreate, response: { 201: LocCompleta } },
      },
      async (request, reply) => {
        const view = await createLoc(ctx.db, callerOf(ctx, request), request.body.tipoCob);
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/loc',
      {
        config: read,
        schema: { tags, summary: 'List payload locations', querystring: LocListQuery, response: { 200: LocList } },
      },
      async (request) => listLocs(ctx.db, callerOf(ctx, request), request.query),
    );

    app.get(
      '/v2/loc/:id',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a payload location (with the txid it serves)',
          params: LocIdParams,
          response: { 200: LocCompleta },
        },
      },
      async (request) => readLoc(ctx.db, callerOf(ctx, request), request.params.id),
    );

    app.delete(
      '/v2/loc/:id/txid',
      {
        config: write,
        schema: {
          tags,
          summary: 'Unlink the charge served by a location',
          params: LocIdParams,
          response: { 200: LocCompleta },
        },
      },
      async (request) => ctx.db.tx((sql) => unlinkLoc(sql, callerOf(ctx, request), request.params.id)),
    );

    app.get(
      '/v2/loc/:id/qrcode',
      {
        config: read,
        schema: {
          tags,
          summary: 'QR code (BR code, PNG image, public page) of a location',
          params: LocIdParams,
          response: { 200: LocQrCode },
        },
      },
      async (request) => locQrCode(ctx.db, callerOf(ctx, request), request.params.id, ctx.pages.url),
    );
  };
