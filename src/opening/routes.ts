/**
 * Account-opening webhooks: POST /v1/webhook, GET /v1/webhook/:identificadorWebhook, GET /v1/webhooks,
 * DELETE /v1/webhook/:identificadorWebhook. Named error format.
 *
 * A missing scope here is an unauthorized error (401, spec: Authentication 3), not the 403 of every other
 * family: these routes name their scope in `openingScope`, which the shared guard does not read, and a hook
 * of this plugin (running after the guard authenticated the caller) checks it.
 */
import type { FastifyPluginAsync, onRequestHookHandler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import type { Scope } from '../platform/auth/scopes.ts';
import { callerOf } from '../pix/shared/caller.ts';
import {
  IdentificadorParams,
  OpeningWebhookBody,
  OpeningWebhookList,
  OpeningWebhookListQuery,
  OpeningWebhookView,
} from './schemas.ts';
import { listOpeningWebhookPage, readOpeningWebhook, registerOpeningWebhook, removeOpeningWebhook } from './service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope of an account-opening route; missing it is a 401 (see file comment). */
    openingScope?: Scope;
  }
}

const tags = ['Abertura de contas: webhooks'];

/** Also checks the simplified-account routes' scopes (opening/accounts/routes.ts). */
export const requireOpeningScope: onRequestHookHandler = async (request) => {
  const scope = request.routeOptions.config.openingScope;
  if (scope && !request.principal.scopes.has(scope))
    throw new ApiError(401, 'Unauthorized', `Escopo necessário: ${scope}.`);
};

export const openingWebhookRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', requireOpeningScope);
    const write = { openingScope: 'gn.registration.webhook.write' } as const;
    const read = { openingScope: 'gn.registration.webhook.read' } as const;

    app.post(
      '/v1/webhook',
      {
        // A body without a usable URL is an invalid URL, whatever shape it had.
        config: { ...write, invalidRequest: 'url_webhook' },
        schema: {
          tags,
          summary: 'Register an account-opening webhook (HTTPS with mutual TLS required)',
          body: OpeningWebhookBody,
          response: { 200: Type.Object({ identificadorWebhook: Type.String() }) },
        },
      },
      async (request) =>
        registerOpeningWebhook({ db: ctx.db, transport: ctx.webhooks.transport }, callerOf(ctx, request), request.body),
    );

    app.get(
      '/v1/webhook/:identificadorWebhook',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read an account-opening webhook',
          params: IdentificadorParams,
          response: { 200: OpeningWebhookView },
        },
      },
      async (request) => readOpeningWebhook(ctx.db, callerOf(ctx, request), request.params.identificadorWebhook),
    );

    app.get(
      '/v1/webhooks',
      {
        config: read,
        schema: {
          tags,
          summary: 'List account-opening webhooks',
          querystring: OpeningWebhookListQuery,
          response: { 200: OpeningWebhookList },
        },
      },
      async (request) => listOpeningWebhookPage(ctx.db, callerOf(ctx, request), request.query),
    );

    app.delete(
      '/v1/webhook/:identificadorWebhook',
      { config: write, schema: { tags, summary: 'Remove an account-opening webhook', params: IdentificadorParams } },
      async (request, reply) => {
        await removeOpeningWebhook(ctx.db, callerOf(ctx, request), request.params.identificadorWebhook);
        return reply.status(204).send();
      },
    );
  };
