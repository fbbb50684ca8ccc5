import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { KeyCreated, KeyList, KeyParams } from './schemas.ts';
import { createRandomKey, listRandomKeys, removeRandomKey } from './service.ts';

const tags = ['Chaves aleatórias'];

export const evpRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    // POST /v2/gn/evp has no body, but clients (the SDK among them) may still say application/json: an empty
    // body is accepted here instead of Fastify's "empty JSON body" 400. Non-empty bodies parse as usual.
    const json = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
      body === '' ? done(null, undefined) : json(request, String(body), done),
    );

    app.post(
      '/v2/gn/evp',
      {
        config: { scope: 'gn.pix.evp.write', rateLimited: true },
        schema: {
          tags,
          summary: 'Create a random key (limit per account: docs/keys-settings.md)',
          response: { 201: KeyCreated },
        },
      },
      async (request, reply) => reply.status(201).send(await createRandomKey(ctx.db, callerOf(ctx, request))),
    );

    app.get(
      '/v2/gn/evp',
      {
        config: { scope: 'gn.pix.evp.read' },
        schema: { tags, summary: 'List the active random keys', response: { 200: KeyList } },
      },
      async (request) => listRandomKeys(ctx.db, callerOf(ctx, request)),
    );

    app.delete(
      '/v2/gn/evp/:chave',
      {
        config: { scope: 'gn.pix.evp.write' },
        schema: { tags, summary: 'Remove a random key for good', params: KeyParams },
      },
      async (request, reply) => {
        await removeRandomKey(ctx.db, callerOf(ctx, request), request.params.chave);
        return reply.status(200).send();
      },
    );
  };
