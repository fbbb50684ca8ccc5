/** POST/GET/PATCH /v1/pagamentos-biometria/vinculos (ofCreate/ofList/ofRevokeBiometricEnrollment). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { payerFacingCallerOf } from '../caller.ts';
import { IdempotencyHeaders } from '../shared.ts';
import { LinkBody, LinkCreated, LinkList, LinkListQuery, LinkRevoke, LinkRevoked } from './schemas.ts';
import { createLink, listLinks, revokeLink } from './service.ts';

const tags = ['Open Finance: Pix por biometria'];
const PATH = '/v1/pagamentos-biometria/vinculos';

export const ofLinkRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const sandbox = ctx.config.environment === 'sandbox';

    app.post(
      PATH,
      {
        config: { scope: 'gn.opb.payment.pix.send', rateLimited: true, invalidRequest: 'vinculo_invalido' },
        schema: {
          tags,
          summary: 'Create a biometric link; the payer authorises it once at redirectURI',
          body: LinkBody,
          headers: IdempotencyHeaders,
          response: { 200: LinkCreated },
        },
      },
      async (request) => {
        const caller = payerFacingCallerOf(ctx, request);
        return ctx.db.tx((sql) => createLink(sql, caller, request.body, sandbox, request.headers['x-idempotency-key']));
      },
    );

    app.get(
      PATH,
      {
        config: { scope: 'gn.opb.payment.pix.read', invalidRequest: 'parametro_invalido' },
        schema: { tags, summary: "A payer's active links", querystring: LinkListQuery, response: { 200: LinkList } },
      },
      async (request) => listLinks(ctx.db, callerOf(ctx, request), request.query, sandbox),
    );

    app.patch(
      PATH,
      {
        config: { scope: 'gn.opb.payment.pix.send', invalidRequest: 'vinculo_invalido' },
        schema: { tags, summary: 'Revoke a link', body: LinkRevoke, response: { 200: LinkRevoked } },
      },
      async (request) => ctx.db.tx((sql) => revokeLink(sql, callerOf(ctx, request), request.body)),
    );
  };
