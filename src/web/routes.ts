/**
 * Pages and browser code a person's browser loads (public): the checkout page and the payment-token library
 * as ES module (/web/payment-token.mjs) and plain script (/web/payment-token.js). The library's brand table is
 * injected from src/billing/tokens/brands.ts when served.
 */
import fs from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { BRAND_PATTERNS } from '../billing/tokens/brands.ts';
import { INVALID_BRAND_CODE } from '../billing/shared/errors.ts';
import { CreditCard } from '../billing/charges/schemas.ts';
import { escapeHtml, jsonForScript, notFoundPage, PAGE_STYLE } from '../platform/html.ts';
import { checkoutData, checkoutPay, checkoutView } from './checkout.ts';
import { landingPage } from './landing.ts';
import { faviconIco } from './favicon.ts';

const read = (name: string) => fs.readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

function library(): { esm: string; script: string } {
  const body = (scriptUrl: string) =>
    read('payment-token.js')
      .replace('__BRAND_PATTERNS__', JSON.stringify(BRAND_PATTERNS))
      .replace('__INVALID_BRAND_CODE__', String(INVALID_BRAND_CODE))
      .replace('__SCRIPT_URL__', scriptUrl);
  return {
    esm: `${body('import.meta.url')}\nexport default PixdPayment;\nexport { PixdPayment };\n`,
    script: `(function () {\n${body('document.currentScript && document.currentScript.src')}\nwindow.PixdPayment = PixdPayment;\n})();\n`,
  };
}

const TokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 64 }) });
/** The page takes any token: a mistyped link gets the friendly 404, not a validation error. */
const PageParams = Type.Object({ token: Type.String() });
const { payment_token, installments, customer, billing_address } = CreditCard.properties;
const CheckoutPay = Type.Object(
  { payment_token, installments, customer, billing_address },
  { additionalProperties: false },
);
const tags = ['Pages'];

export const webRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const lib = library();
    const template = read('checkout.html').replace('<!--__STYLE__-->', `<style>${PAGE_STYLE}</style>`);
    const html = 'text/html; charset=utf-8';
    const js = 'text/javascript; charset=utf-8';

    const favicon = faviconIco();
    app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(favicon),
    );
    const landing = landingPage(ctx);
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(landing),
    );
    app.get(
      '/web/payment-token.mjs',
      { schema: { tags, summary: 'Payment-token browser library (ES module)' } },
      async (_request, reply) => reply.type(js).send(lib.esm),
    );
    app.get(
      '/web/payment-token.js',
      { schema: { tags, summary: 'Payment-token browser library (plain script, global PixdPayment)' } },
      async (_request, reply) => reply.type(js).send(lib.script),
    );
    app.get(
      '/checkout/:token',
      {
        schema: {
          tags,
          summary: 'Checkout page of a charge (404 page for an unknown token)',
          params: PageParams,
          produces: ['text/html'],
        },
      },
      async (request, reply) => {
        const view = await checkoutView(ctx.db, request.params.token, ctx.config.environment);
        if (!view) return reply.code(404).type(html).send(notFoundPage('esta página de pagamento'));
        const merchant = escapeHtml(view.merchant);
        // Functions as replacements: `$` in a merchant's name or an item is text, not a replacement pattern.
        return reply
          .type(html)
          .header('cache-control', 'no-store')
          .send(
            template
              .replaceAll('__MERCHANT__', () => merchant)
              .replace(
                '<!--__DATA__-->',
                () => `<script id="checkout-data" type="application/json">${jsonForScript(view)}</script>`,
              ),
          );
      },
    );
    app.get('/checkout/:token/data', { schema: { hide: true, params: TokenParams } }, async (request) =>
      checkoutData(ctx.db, request.params.token, ctx.config.environment),
    );
    app.post(
      '/checkout/:token/pay',
      { schema: { hide: true, params: TokenParams, body: CheckoutPay } },
      async (request) => {
        const status = await ctx.db.tx((sql) =>
          checkoutPay(
            sql,
            request.params.token,
            request.body,
            (accountId) => ctx.clock.forAccount(accountId).now(),
            ctx.pages.url,
          ),
        );
        return { code: 200, status };
      },
    );
  };
