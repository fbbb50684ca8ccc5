/** Billing notifications: GET /v1/notification/:token (the deliveries are ./delivery.ts's topic). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { NotificationList, TokenParams } from './schemas.ts';
import { readNotification } from './service.ts';

export const billingNotificationRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v1/notification/:token',
      {
        config: { scope: 'charge.read' },
        schema: {
          tags: ['Billing'],
          summary: 'Status changes of a charge (marks them delivered)',
          params: TokenParams,
          response: { 200: NotificationList },
        },
      },
      async (request) => ({
        code: 200,
        data: await readNotification(
          ctx.db,
          request.principal.accountId,
          request.params.token,
          ctx.clock.forAccount(request.principal.accountId).now(),
        ),
      }),
    );
  };
