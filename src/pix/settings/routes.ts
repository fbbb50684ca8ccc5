import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { SettingsBody } from './schemas.ts';
import { readSettings, writeSettings } from './service.ts';

const tags = ['Configurações da conta'];

export const settingsRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.put(
      '/v2/gn/config',
      {
        config: { scope: 'gn.settings.write', rateLimited: true },
        schema: {
          tags,
          summary: 'Replace the account settings (receiving options and webhook contents per key)',
          body: SettingsBody,
          response: { 201: SettingsBody },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await writeSettings(ctx.db, callerOf(ctx, request), request.body)),
    );

    app.get(
      '/v2/gn/config',
      {
        config: { scope: 'gn.settings.read' },
        schema: {
          tags,
          summary: 'The account settings in force, every active key listed',
          response: { 200: SettingsBody },
        },
      },
      async (request) => readSettings(ctx.db, callerOf(ctx, request)),
    );
  };
