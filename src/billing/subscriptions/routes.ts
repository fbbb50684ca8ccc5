/** Subscription endpoints (billing family): /v1/plan/:id/subscription…, /v1/subscription/:id…. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { billingCallerOf } from '../shared/caller.ts';
import { Done } from '../charges/schemas.ts';
import { PlanIdParams } from '../plans/schemas.ts';
import {
  OneStepSubscription,
  SubscriptionCreate,
  SubscriptionCreated,
  SubscriptionDetail,
  SubscriptionHistoryEntry,
  SubscriptionIdParams,
  SubscriptionLink,
  SubscriptionLinkAnswer,
  SubscriptionMetadata,
  SubscriptionPaid,
  SubscriptionPayment,
  SubscriptionUpdate,
  SubscriptionUpdated,
} from './schemas.ts';
import {
  addSubscriptionHistory,
  cancelSubscription,
  changeSubscription,
  createSubscription,
  createdView,
  lockOwnSubscription,
  oneStepSubscription,
  paidView,
  paySubscription,
  subscriptionDetail,
  updateSubscriptionMetadata,
} from './service.ts';
import { oneStepSubscriptionLink, subscriptionLinkView } from './link.ts';

const tags = ['Billing: subscriptions'];
const write = { scope: 'charge.write' } as const;
const read = { scope: 'charge.read' } as const;

export const billingSubscriptionRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const params = SubscriptionIdParams;

    app.post(
      '/v1/plan/:id/subscription',
      {
        config: write,
        schema: {
          tags,
          summary: 'Subscribe to a plan (status new; its first charge new)',
          params: PlanIdParams,
          body: SubscriptionCreate,
          response: { 200: SubscriptionCreated },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        const made = await ctx.db.tx((sql) => createSubscription(sql, c, request.params.id, request.body));
        return { code: 200, data: createdView(made.subscription, made.charge) };
      },
    );

    app.post(
      '/v1/plan/:id/subscription/one-step',
      {
        config: write,
        schema: {
          tags,
          summary: 'Subscribe and pay the first charge by card at once',
          params: PlanIdParams,
          body: OneStepSubscription,
          response: { 200: SubscriptionPaid },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        return {
          code: 200,
          data: paidView(await ctx.db.tx((sql) => oneStepSubscription(sql, c, request.params.id, request.body))),
        };
      },
    );

    app.post(
      '/v1/plan/:id/subscription/one-step/link',
      {
        config: write,
        schema: {
          tags,
          summary: 'Subscribe through a payment link (the payer pays the first charge on its page)',
          params: PlanIdParams,
          body: SubscriptionLink,
          response: { 200: SubscriptionLinkAnswer },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        const made = await ctx.db.tx((sql) => oneStepSubscriptionLink(sql, c, request.params.id, request.body));
        return { code: 200, data: subscriptionLinkView(c, made) };
      },
    );

    app.post(
      '/v1/subscription/:id/pay',
      {
        config: write,
        schema: {
          tags,
          summary: 'Pay a new subscription by card (first charge at once, renewals with the same card)',
          params,
          body: SubscriptionPayment,
          response: { 200: SubscriptionPaid },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        const paid = await ctx.db.tx(async (sql) =>
          paySubscription(sql, c, await lockOwnSubscription(sql, c, request.params.id), request.body.payment),
        );
        return { code: 200, data: paidView(paid) };
      },
    );

    app.get(
      '/v1/subscription/:id',
      { config: read, schema: { tags, summary: 'Read a subscription', params, response: { 200: SubscriptionDetail } } },
      async (request) => ({
        code: 200,
        data: await subscriptionDetail(ctx.db, billingCallerOf(ctx, request), request.params.id),
      }),
    );

    app.put(
      '/v1/subscription/:id',
      {
        config: write,
        schema: {
          tags,
          summary: 'Change plan, customer contact, items or shippings of a card subscription',
          params,
          body: SubscriptionUpdate,
          response: { 200: SubscriptionUpdated },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        return {
          code: 200,
          data: await ctx.db.tx((sql) => changeSubscription(sql, c, request.params.id, request.body)),
        };
      },
    );

    app.put(
      '/v1/subscription/:id/metadata',
      {
        config: write,
        schema: {
          tags,
          summary: 'Set notification_url and custom_id',
          params,
          body: SubscriptionMetadata,
          response: { 200: Done },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        await ctx.db.tx((sql) => updateSubscriptionMetadata(sql, c, request.params.id, request.body));
        return { code: 200 };
      },
    );

    app.post(
      '/v1/subscription/:id/history',
      {
        config: write,
        schema: {
          tags,
          summary: 'Add a line to the history',
          params,
          body: SubscriptionHistoryEntry,
          response: { 200: Done },
        },
      },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        await ctx.db.tx((sql) => addSubscriptionHistory(sql, c, request.params.id, request.body.description));
        return { code: 200 };
      },
    );

    app.put(
      '/v1/subscription/:id/cancel',
      { config: write, schema: { tags, summary: 'Cancel: no more renewals', params, response: { 200: Done } } },
      async (request) => {
        const c = billingCallerOf(ctx, request);
        await ctx.db.tx((sql) => cancelSubscription(sql, c, request.params.id));
        return { code: 200 };
      },
    );
  };
