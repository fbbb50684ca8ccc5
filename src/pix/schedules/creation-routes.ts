/**
 * The interface only reads scheduled Pix, so they are created here, two ways over one service call:
 *   POST /sandbox/pix/schedules  the caller's own account (sandbox only, mounted by sandbox/routes.ts)
 *   POST /operator/schedules     any account by its `conta` (what `pixd schedule create` calls)
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { ApiError } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { ScheduleCreate, ScheduleCreateFields, ScheduleView } from './schemas.ts';
import { SCHEDULE_INVALID, createSchedule } from './service.ts';
import { accountIdByConta } from './store.ts';

async function create(ctx: AppContext, accountId: number, body: ScheduleCreate): Promise<ScheduleView> {
  // Its commit wakes the outbox: a schedule due within the next poll runs on time.
  return ctx.db.tx((sql) => createSchedule(sql, accountId, ctx.clock.forAccount(accountId).now(), body));
}

export const scheduleSandboxRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/sandbox/pix/schedules',
      {
        config: { invalidRequest: SCHEDULE_INVALID },
        schema: {
          tags: ['Sandbox'],
          summary:
            "Schedule a Pix sent from the caller's account (sandbox); the scheduler runs it on the service clock",
          body: ScheduleCreate,
          response: { 201: ScheduleView },
        },
      },
      async (request, reply) => reply.status(201).send(await create(ctx, request.principal.accountId, request.body)),
    );
  };

const OperatorScheduleCreate = Type.Object(
  { conta: Type.String({ pattern: `^\\d{1,${LIMITS.contaMaxDigits}}$` }), ...ScheduleCreateFields },
  { additionalProperties: false },
);

export const scheduleOperatorRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/operator/schedules',
      {
        config: { invalidRequest: SCHEDULE_INVALID },
        schema: { tags: ['Operator'], hide: true, body: OperatorScheduleCreate },
      },
      async (request, reply) => {
        const { conta, ...body } = request.body;
        const accountId = await accountIdByConta(ctx.db, conta);
        if (accountId === undefined) throw new ApiError(404, 'conta_inexistente', `Nenhuma conta ${conta}.`);
        return reply.status(201).send(await create(ctx, accountId, body));
      },
    );
  };
