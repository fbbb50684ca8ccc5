/** Plan endpoints (billing family): POST /v1/plan, GET /v1/plans, PUT and DELETE /v1/plan/:id. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { billingCallerOf } from '../shared/caller.ts';
import { Done } from '../charges/schemas.ts';
import { PlanAnswer, PlanCreate, PlanIdParams, PlanList, PlanListQuery, PlanUpdate } from './schemas.ts';
import { createPlan, deletePlan, planView, plansOf, updatePlanName } from './service.ts';

const tags = ['Billing: plans'];
const write = { scope: 'charge.write' } as const;
const read = { scope: 'charge.read' } as const;

export const billingPlanRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const params = PlanIdParams;

    app.post(
      '/v1/plan',
      { config: write, schema: { tags, summary: 'Create a plan', body: PlanCreate, response: { 200: PlanAnswer } } },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        return {
          code: 200,
          data: planView(await ctx.db.tx((sql) => createPlan(sql, c.accountId, request.body, c.now))),
        };
      },
    );

    app.get(
      '/v1/plans',
      {
        config: read,
        schema: {
          tags,
          summary: 'List plans (name contains, limit, offset)',
          querystring: PlanListQuery,
          response: { 200: PlanList },
        },
      },
      async (request) => ({
        code: 200,
        data: (await plansOf(ctx.db, request.principal.accountId, request.query)).map(planView),
      }),
    );

    app.put(
      '/v1/plan/:id',
      { config: write, schema: { tags, summary: 'Rename a plan', params, body: PlanUpdate, response: { 200: Done } } },
      async (request) => {
        await ctx.db.tx((sql) =>
          updatePlanName(sql, request.principal.accountId, request.params.id, request.body.name),
        );
        return { code: 200 };
      },
    );

    app.delete(
      '/v1/plan/:id',
      {
        config: write,
        schema: { tags, summary: 'Delete a plan without living subscriptions', params, response: { 200: Done } },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        await ctx.db.tx((sql) => deletePlan(sql, c.accountId, request.params.id, c.now));
        return { code: 200 };
      },
    );
  };
