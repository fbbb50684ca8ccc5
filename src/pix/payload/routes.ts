/**
 * Public routes a payer's institution (or a person) opens: no bearer, no client certificate. A location
 * is a capability URL: knowing its token is the authorisation (Bacen CobPayload tag).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { notFoundPage } from '../../platform/html.ts';
import { VISUALIZATION_PATH, locationPage } from '../loc/service.ts';
import { JWKS_PATH, payloadSigner } from './signer.ts';
import { PAYLOAD_INVALID, chargePayload } from './service.ts';
import { REC_PAYLOAD_INVALID, recPayload } from './rec.ts';

const TokenParams = Type.Object({ token: Type.String() });
/** Unknown parameters are ignored: payer apps add their own (the official SDK's reader always sends DPP). */
const PayloadQuery = Type.Object({
  DPP: Type.Optional(Type.String({ format: 'date', description: 'Data de pagamento pretendida (cobv), YYYY-MM-DD.' })),
  codMun: Type.Optional(Type.String({ pattern: '^\\d{7}$', description: 'IBGE municipality code of the payer.' })),
});
const tags = ['Payload'];

/** A browser's navigation: HTML asked for by name, the payload's own type not. */
export function wantsPage(accept: string | undefined): boolean {
  return !!accept && /\btext\/html\b/.test(accept) && !/application\/jose/.test(accept);
}

export const payloadRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const signer = await payloadSigner(ctx.pki.jws, ctx.pki.ca.certPem, ctx.config.publicUrl);

    const serve = async (
      request: FastifyRequest<{ Params: Static<typeof TokenParams>; Querystring: Static<typeof PayloadQuery> }>,
      reply: FastifyReply,
    ) => {
      // A person who opened the location URL in a browser gets the QR page, not a JWS file to download; a
      // payer's app (application/jose, */*, nothing) still gets the payload.
      if (wantsPage(request.headers.accept))
        return reply.redirect(`${ctx.pages.url}${VISUALIZATION_PATH}/${encodeURIComponent(request.params.token)}`, 303);
      const { payload } = await chargePayload(ctx.db, {
        token: request.params.token,
        now: (accountId) => ctx.clock.forAccount(accountId).now(),
        publicUrl: ctx.config.publicUrl,
        ...request.query,
      });
      // Presentation time is part of the payload, so no cache may replay it.
      return reply
        .type('application/jose')
        .header('cache-control', 'no-store')
        .send(await signer.sign(payload));
    };
    const options = {
      config: { invalidRequest: PAYLOAD_INVALID },
      schema: { tags, params: TokenParams, querystring: PayloadQuery, produces: ['application/jose'] },
    };
    app.get(
      '/qr/v2/:token',
      {
        ...options,
        schema: { ...options.schema, summary: 'Payload (JWS) of the immediate or due charge served by a location' },
      },
      serve,
    );
    app.get(
      '/qr/v2/cobv/:token',
      { ...options, schema: { ...options.schema, summary: 'Payload (JWS) of the due charge served by a location' } },
      serve,
    );

    // Bacen GET /rec/{recUrlAccessToken}: the recurrence behind ID 80 of a composite code (journeys 2-4).
    // It has no query parameters of its own; any sent is ignored, as on the charge payloads.
    app.get(
      '/qr/v2/rec/:token',
      {
        config: { invalidRequest: REC_PAYLOAD_INVALID },
        schema: {
          tags,
          summary: 'Payload (JWS) of the recurrence served by a location of recurrences',
          params: TokenParams,
          produces: ['application/jose'],
        },
      },
      async (request, reply) =>
        reply
          .type('application/jose')
          .header('cache-control', 'no-store')
          .send(await signer.sign(await recPayload(ctx.db, request.params.token))),
    );

    app.get(
      JWKS_PATH,
      { schema: { tags, summary: 'JWK Set verifying the payload signatures (jku)' } },
      async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(signer.jwks),
    );

    app.get(
      `${VISUALIZATION_PATH}/:token`,
      {
        schema: {
          tags,
          summary: 'Page showing the QR code of a location',
          params: TokenParams,
          produces: ['text/html'],
        },
      },
      async (request, reply) => {
        const html = await locationPage(ctx.db, request.params.token, {
          publicUrl: ctx.config.publicUrl,
          sandbox: ctx.config.environment === 'sandbox',
          now: (accountId) => ctx.clock.forAccount(accountId).now(),
        });
        // The page shows the charge's live status: no cache may keep an unpaid one.
        return reply
          .code(html ? 200 : 404)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(html ?? notFoundPage('este QR Code Pix'));
      },
    );
  };
