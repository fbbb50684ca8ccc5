/** POST/GET/PATCH /v1/pagamentos-automaticos/adesao (ofCreate/ofList/ofUpdateAutomaticEnrollment). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { payerFacingCallerOf } from '../caller.ts';
import { IdempotencyHeaders } from '../shared.ts';
import {
  EnrolmentBody,
  EnrolmentCreated,
  EnrolmentList,
  EnrolmentListQuery,
  EnrolmentPatch,
  EnrolmentView,
} from './schemas.ts';
import { createEnrolment, listEnrolments, patchEnrolment } from './service.ts';

const tags = ['Open Finance: pagamentos automáticos'];
const PATH = '/v1/pagamentos-automaticos/adesao';

export const enrolmentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const sandbox = ctx.config.environment === 'sandbox';

    app.post(
      PATH,
      {
        config: { scope: 'gn.opb.automatic.consent.write', rateLimited: true, invalidRequest: 'adesao_invalida' },
        schema: {
          tags,
          summary: 'Create an enrolment; the payer approves it in a browser at redirectURI',
          body: EnrolmentBody,
          headers: IdempotencyHeaders,
          response: { 200: EnrolmentCreated },
        },
      },
      async (request) => {
        const caller = payerFacingCallerOf(ctx, request);
        return ctx.db.tx((sql) =>
          createEnrolment(sql, caller, request.body, sandbox, request.headers['x-idempotency-key']),
        );
      },
    );

    app.get(
      PATH,
      {
        config: { scope: 'gn.opb.automatic.consent.read', invalidRequest: 'parametro_invalido' },
        schema: {
          tags,
          summary: 'List enrolments created in a period (keyset pages)',
          querystring: EnrolmentListQuery,
          response: { 200: EnrolmentList },
        },
      },
      async (request) => listEnrolments(ctx.db, callerOf(ctx, request), request.query),
    );

    app.patch(
      PATH,
      {
        config: { scope: 'gn.opb.automatic.consent.write', invalidRequest: 'adesao_invalida' },
        schema: {
          tags,
          summary: 'Revoke an enrolment (only status revogado is accepted)',
          body: EnrolmentPatch,
          response: { 200: EnrolmentView },
        },
      },
      async (request) => ctx.db.tx((sql) => patchEnrolment(sql, callerOf(ctx, request), request.body)),
    );
  };
