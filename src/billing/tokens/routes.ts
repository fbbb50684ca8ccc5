/**
 * Payment-token routes. Public ones (no token, no certificate: called from payers' browsers by our library and
 * by payment-token-efi in its sandbox flow) answer CORS for any origin, as the library runs on merchants'
 * sites: GET /v1/pubkey?code=, GET /v1/installments/:payee_code/jsonp, GET /v1/card/:payee_code/jsonp.
 * For servers (billing token): GET /v1/installments?brand=&total=.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { errorHandler } from '../../platform/errors.ts';
import {
  CodedBillingError,
  createPaymentToken,
  installmentsFor,
  installmentsForPayee,
  publicKeyFor,
} from './service.ts';
import {
  CardQuery,
  InstallmentsQuery,
  InstallmentsView,
  PayeeParams,
  PubkeyQuery,
  PubkeyView,
  TokenView,
} from './schemas.ts';

const tags = ['Billing: payment tokens'];
const billingErrors = errorHandler('billing');

/** The family's error body, except that library errors carry their own numeric `code` (invalid_brand 3500056). */
export function billingTokenErrors(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof CodedBillingError)
    return reply
      .status(error.statusCode)
      .send({ code: error.code, error: error.errorName, error_description: error.detail });
  return billingErrors.call(this, error, request, reply);
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': 'content-type, session-token, account-code',
  'access-control-max-age': '600',
};

/** Public routes (register in a family without a guard). */
export const paymentTokenPublicRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.setErrorHandler(billingTokenErrors);
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(CORS_HEADERS);
    });
    for (const url of ['/v1/pubkey', '/v1/installments/:payee_code/jsonp', '/v1/card/:payee_code/jsonp']) {
      app.options(url, { schema: { hide: true } }, async (_request, reply) => reply.status(204).send());
    }

    app.get(
      '/v1/pubkey',
      {
        schema: {
          tags,
          summary: 'Public key the browser encrypts card data with',
          querystring: PubkeyQuery,
          response: { 200: PubkeyView },
        },
      },
      async (request) => ({
        code: 200,
        data: await publicKeyFor(ctx.db, request.query.code),
      }),
    );

    app.get(
      '/v1/installments/:payee_code/jsonp',
      {
        schema: {
          tags,
          summary: 'Installments for a brand and total (browser)',
          params: PayeeParams,
          querystring: InstallmentsQuery,
          response: { 200: InstallmentsView },
        },
      },
      async (request) => ({
        code: 200,
        data: await installmentsForPayee(ctx.db, request.params.payee_code, request.query.brand, request.query.total),
      }),
    );

    app.get(
      '/v1/card/:payee_code/jsonp',
      {
        schema: {
          tags,
          summary: 'Payment token from card data encrypted in the browser',
          params: PayeeParams,
          querystring: CardQuery,
          response: { 200: TokenView },
        },
      },
      async (request) => ({
        code: 200,
        data: await createPaymentToken(ctx.db, request.params.payee_code, request.query.data, (accountId) =>
          ctx.clock.forAccount(accountId).now(),
        ),
      }),
    );
  };

/** Server routes (billing family, billing token). */
export const paymentTokenRoutes =
  (_ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.setErrorHandler(billingTokenErrors);
    app.get(
      '/v1/installments',
      {
        config: { scope: 'charge.read' },
        schema: {
          tags,
          summary: 'Installments for a brand and total',
          querystring: InstallmentsQuery,
          response: { 200: InstallmentsView },
        },
      },
      async (request) => ({ code: 200, data: installmentsFor(request.query.brand, request.query.total) }),
    );
  };
