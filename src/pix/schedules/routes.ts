/**
 * `GET /v1/pix/schedules` and `GET /v1/pix/schedules/:txid`, in the /v1 wrapper envelope. Scopes are
 * kept as the interface lists them (`cobv.read` for the list, `cob.read` for the read): both exist and
 * the demo application holds both (docs/reports-schedules.md).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { correlationId, responseTimeMs } from '../../platform/errors.ts';
import { ScheduleList, ScheduleListQuery, ScheduleRead, ScheduleTxidParams } from './schemas.ts';
import { listSchedules, readSchedule } from './service.ts';

const tags = ['Pix agendados'];

export const scheduleRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v1/pix/schedules',
      {
        config: { scope: 'cobv.read' },
        schema: {
          tags,
          summary: 'List scheduled Pix whose date falls in [inicio, fim] (at most 31 days)',
          querystring: ScheduleListQuery,
          response: { 200: ScheduleList },
        },
      },
      async (request, reply) => {
        const page = await listSchedules(ctx.db, request.principal.accountId, request.query);
        return { responseTime: responseTimeMs(reply), correlationId: correlationId(request), ...page };
      },
    );

    app.get(
      '/v1/pix/schedules/:txid',
      {
        config: { scope: 'cob.read' },
        schema: {
          tags,
          summary: 'Read the scheduled Pix with this txid',
          params: ScheduleTxidParams,
          response: { 200: ScheduleRead },
        },
      },
      async (request, reply) => {
        const found = await readSchedule(ctx.db, request.principal.accountId, request.params.txid);
        return { responseTime: responseTimeMs(reply), correlationId: correlationId(request), ...found };
      },
    );
  };
