/** PUT /v1/config and GET /v1/config (ofConfigUpdate, ofConfigDetail). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { OfConfigBody, OfConfigView } from './schemas.ts';
import { readOfConfig, updateOfConfig } from './service.ts';

const tags = ['Open Finance'];

export const ofConfigRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/v1/config',
      {
        config: { scope: 'gn.opb.automatic.consent.write', invalidRequest: 'configuracao_invalida' },
        schema: {
          tags,
          summary: "Set the application's redirect and webhook addresses",
          body: OfConfigBody,
          response: { 200: OfConfigView },
        },
      },
      async (request) => updateOfConfig(ctx.db, callerOf(ctx, request), request.body),
    );
    app.get(
      '/v1/config',
      {
        config: { scope: 'gn.opb.automatic.consent.read' },
        schema: { tags, summary: "Read the application's Open Finance addresses", response: { 200: OfConfigView } },
      },
      async (request) => readOfConfig(ctx.db, callerOf(ctx, request)),
    );
  };
