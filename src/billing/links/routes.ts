/**
 * Payment-link endpoints: the API (billing family: POST /v1/charge/one-step/link, POST and PUT
 * /v1/charge/:id/link) and the payer's page (pages listener: GET /link/:token, POST /link/:token/choose).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { AppContext } from '../../platform/context.ts';
import { ApiError } from '../../platform/errors.ts';
import { notFoundPage } from '../../platform/html.ts';
import { billingCallerOf } from '../shared/caller.ts';
import { ChargeIdParams } from '../charges/schemas.ts';
import { DeliveryAddress, LinkAnswer, LinkEmail, LinkSettings, OneStepLink } from './schemas.ts';
import { chooseCard, defineLinkOf, linkView, mailLink, oneStepLink, updateLink } from './service.ts';
import { mailerOf } from '../boletos/routes.ts';
import { Done } from '../charges/schemas.ts';
import { linkPage, linkPageState } from './page.ts';
import { chooseLinkBoleto } from '../subscriptions/link.ts';

const write = { scope: 'charge.write' } as const;
const tags = ['Billing: payment links'];

export const billingLinkRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const response = { 200: LinkAnswer };

    app.post(
      '/v1/charge/one-step/link',
      {
        config: write,
        schema: { tags, summary: 'Create a charge with its payment link', body: OneStepLink, response },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        return { code: 200, data: linkView(c, await ctx.db.tx((sql) => oneStepLink(sql, c, request.body))) };
      },
    );

    app.post(
      '/v1/charge/:id/link',
      {
        config: write,
        schema: {
          tags,
          summary: 'Make a payment link for a new charge',
          params: ChargeIdParams,
          body: LinkSettings,
          response,
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        return {
          code: 200,
          data: linkView(c, await ctx.db.tx((sql) => defineLinkOf(sql, c, request.params.id, request.body))),
        };
      },
    );

    app.put(
      '/v1/charge/:id/link',
      {
        config: write,
        schema: {
          tags,
          summary: 'Change an unpaid payment link',
          params: ChargeIdParams,
          body: LinkSettings,
          response,
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        return {
          code: 200,
          data: linkView(c, await ctx.db.tx((sql) => updateLink(sql, c, request.params.id, request.body))),
        };
      },
    );

    // sendLinkEmail, and sendSubscriptionLinkEmail for a subscription link's charge: the same e-mail.
    for (const [path, summary] of [
      ['/v1/charge/:id/link/resend', 'E-mail the payment link'],
      ['/v1/charge/:id/subscription/resend', "E-mail a subscription link (its first charge's id)"],
    ] as const)
      app.post(
        path,
        { config: write, schema: { tags, summary, params: ChargeIdParams, body: LinkEmail, response: { 200: Done } } },
        async (request) => {
          const c = billingCallerOf(ctx, request);
          await ctx.db.tx((sql) => mailLink(sql, c, mailerOf(ctx), request.params.id, request.body.email));
          return { code: 200 };
        },
      );
  };

const PageParams = Type.Object({ token: Type.String() });
const html = 'text/html; charset=utf-8';
const ADDRESS_KEYS = Object.keys(DeliveryAddress.properties);

/** The payer's page and its one form (no client certificate, no token: the link's address is the secret). */
export const linkPageRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const now = (accountId: number) => ctx.clock.forAccount(accountId).now();

    app.get(
      '/link/:token',
      {
        schema: {
          tags: ['Pages'],
          summary: 'Payment link page (404 page for an unknown token)',
          params: PageParams,
          produces: ['text/html'],
        },
      },
      async (request, reply) => {
        const state = await linkPageState(ctx.db, request.params.token);
        if (!state) return reply.code(404).type(html).send(notFoundPage('este link de pagamento'));
        return reply
          .type(html)
          .header('cache-control', 'no-store')
          .send(await linkPage(state, now(state.charge.account_id), ctx.pages.url));
      },
    );

    app.post(
      '/link/:token/choose',
      { schema: { hide: true, params: PageParams, body: Type.Record(Type.String(), Type.String()) } },
      async (request, reply) => {
        const state = await linkPageState(ctx.db, request.params.token);
        if (!state) return reply.code(404).type(html).send(notFoundPage('este link de pagamento'));
        const at = now(state.charge.account_id);
        const fields = Object.fromEntries(
          ADDRESS_KEYS.filter((k) => request.body[k]?.trim()).map((k) => [k, request.body[k].trim()]),
        );
        const address = state.link.request_delivery_address ? fields : undefined;
        try {
          if (address && !Value.Check(DeliveryAddress, address))
            throw new ApiError(
              400,
              'validation_error',
              'Confira o endereço de entrega: CEP com 8 números e o estado com 2 letras.',
            );
          const method = request.body.method ?? 'credit_card';
          if (!['credit_card', 'banking_billet', 'pix'].includes(method))
            throw new ApiError(400, 'validation_error', 'Escolha cartão, boleto ou Pix.');
          if (method === 'credit_card')
            await ctx.db.tx((sql) => chooseCard(sql, state.link, state.charge, address as never, at));
          else {
            // Boleto and Pix both issue the boleto: its Pix QR is the Pix option (docs/billing.md, "Payment links"); a
            // subscription link's subscription becomes active on it.
            const payer = { name: request.body.name?.trim() ?? '', cpf: (request.body.cpf ?? '').replace(/\D/g, '') };
            const caller = {
              accountId: state.charge.account_id,
              now: at,
              pagesUrl: ctx.pages.url,
              publicUrl: ctx.config.publicUrl,
            };
            await ctx.db.tx((sql) => chooseLinkBoleto(sql, caller, state.link, payer, address as never));
            return reply.redirect(`/link/${state.link.token}${method === 'pix' ? '#pix' : ''}`, 303);
          }
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return reply
            .code(400)
            .type(html)
            .send(
              await linkPage(state, at, ctx.pages.url, {
                error: error.message,
                values: { ...fields, name: request.body.name ?? '', cpf: request.body.cpf ?? '' },
              }),
            );
        }
        return reply.redirect(`/checkout/${state.charge.checkout_token}`, 303);
      },
    );
  };
