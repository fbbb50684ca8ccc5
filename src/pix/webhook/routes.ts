/**
 * Pix-key webhooks (/v2/webhook), recurrence (/v2/webhookrec) and automatic-charge (/v2/webhookcobr)
 * webhooks, and resend (/v2/gn/webhook/reenviar). Their events are delivered by ./events.ts's topics.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import {
  AccountWebhookView,
  ChaveParams,
  PixWebhookList,
  PixWebhookListQuery,
  PixWebhookSaved,
  PixWebhookView,
  ResendBody,
  SkipMtlsHeaders,
  WebhookBody,
} from './schemas.ts';
import {
  INVALID_NAME,
  LIST_INVALID,
  listPixWebhookPage,
  parseSkipHeader,
  readAccountWebhook,
  readPixWebhook,
  registerAccountWebhook,
  registerPixWebhook,
  removeAccountWebhook,
  removePixWebhook,
} from './service.ts';
import { RESEND_INVALID, requestResend } from './resend.ts';
import type { AccountWebhookKind } from './store.ts';

const tags = ['Webhooks'];

export const pixWebhookRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const deps = { db: ctx.db, transport: ctx.webhooks.transport };

    app.put(
      '/v2/webhook/:chave',
      {
        config: {
          scope: 'webhook.write',
          rateLimited: true,
          invalidRequest: INVALID_NAME.pix,
          propertyRoot: 'webhook',
        },
        schema: {
          tags,
          summary: 'Register the webhook of a Pix key (handshake first: without, then with the client certificate)',
          params: ChaveParams,
          headers: SkipMtlsHeaders,
          body: WebhookBody,
          response: { 201: PixWebhookSaved },
        },
      },
      async (request, reply) => {
        const saved = await registerPixWebhook(
          deps,
          callerOf(ctx, request),
          request.params.chave,
          request.body.webhookUrl,
          parseSkipHeader(request.headers['x-skip-mtls-checking']),
        );
        return reply.status(201).send(saved);
      },
    );

    app.get(
      '/v2/webhook/:chave',
      {
        config: { scope: 'webhook.read' },
        schema: {
          tags,
          summary: 'Read the webhook of a Pix key',
          params: ChaveParams,
          response: { 200: PixWebhookView },
        },
      },
      async (request) => readPixWebhook(ctx.db, callerOf(ctx, request), request.params.chave),
    );

    app.get(
      '/v2/webhook',
      {
        config: { scope: 'webhook.read', invalidRequest: LIST_INVALID },
        schema: {
          tags,
          summary: 'List the Pix webhooks registered in a period',
          querystring: PixWebhookListQuery,
          response: { 200: PixWebhookList },
        },
      },
      async (request) => listPixWebhookPage(ctx.db, callerOf(ctx, request), request.query),
    );

    app.delete(
      '/v2/webhook/:chave',
      {
        config: { scope: 'webhook.write' },
        schema: { tags, summary: 'Remove the webhook of a Pix key', params: ChaveParams },
      },
      async (request, reply) => {
        await removePixWebhook(ctx.db, callerOf(ctx, request), request.params.chave);
        return reply.status(204).send();
      },
    );

    /** /v2/webhookrec answers PUT with 200, /v2/webhookcobr with 201 (spec: Webhooks table). */
    const accountKinds: {
      kind: AccountWebhookKind;
      path: string;
      scope: 'webhookrec' | 'webhookcobr';
      putStatus: 200 | 201;
      what: string;
    }[] = [
      { kind: 'rec', path: '/v2/webhookrec', scope: 'webhookrec', putStatus: 200, what: 'recurrence (automatic Pix)' },
      { kind: 'cobr', path: '/v2/webhookcobr', scope: 'webhookcobr', putStatus: 201, what: 'automatic-charge' },
    ];
    for (const { kind, path, scope, putStatus, what } of accountKinds) {
      app.put(
        path,
        {
          config: { scope: `${scope}.write`, invalidRequest: INVALID_NAME[kind], propertyRoot: 'webhook' },
          schema: {
            tags,
            summary: `Register the ${what} webhook of the account`,
            headers: SkipMtlsHeaders,
            body: WebhookBody,
            response: { [putStatus]: AccountWebhookView },
          },
        },
        async (request, reply) => {
          const saved = await registerAccountWebhook(
            deps,
            callerOf(ctx, request),
            kind,
            request.body.webhookUrl,
            parseSkipHeader(request.headers['x-skip-mtls-checking']),
          );
          return reply.status(putStatus).send(saved);
        },
      );
      app.get(
        path,
        {
          config: { scope: `${scope}.read` },
          schema: { tags, summary: `Read the ${what} webhook`, response: { 200: AccountWebhookView } },
        },
        async (request) => readAccountWebhook(ctx.db, callerOf(ctx, request), kind),
      );
      app.delete(
        path,
        { config: { scope: `${scope}.write` }, schema: { tags, summary: `Remove the ${what} webhook` } },
        async (request, reply) => {
          await removeAccountWebhook(ctx.db, callerOf(ctx, request), kind);
          return reply.status(204).send();
        },
      );
    }

    app.post(
      '/v2/gn/webhook/reenviar',
      {
        config: { scope: 'webhook.write', invalidRequest: RESEND_INVALID, propertyRoot: 'reenvio' },
        schema: {
          tags,
          summary: 'Resend Pix webhooks: one attempt each, for transactions at most 30 days old',
          body: ResendBody,
          response: {
            202: Type.Object({
              reenvios: Type.Integer({
                description: 'Webhooks queued (a Pix named twice, or by its refunds, counts once).',
              }),
            }),
          },
        },
      },
      async (request, reply) => {
        const result = await requestResend(ctx.db, callerOf(ctx, request), request.body);
        return reply.status(202).send(result);
      },
    );
  };
