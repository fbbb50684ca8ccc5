/** Carnê endpoints (billing family, `/v1/carnet…`) and the carnê's PDF on the pages listener. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { notFoundPage } from '../../platform/html.ts';
import { billingCallerOf } from '../shared/caller.ts';
import { Done, MetadataUpdate } from '../charges/schemas.ts';
import { addHistory, updateMetadata } from '../charges/service.ts';
import { Email, HistoryBody, LinkParams, UpdateBillet } from '../boletos/schemas.ts';
import { mailerOf } from '../boletos/routes.ts';
import { CarnetCreate, CarnetCreated, CarnetDetail, CarnetIdParams, ParcelParams, ParcelsUpdate } from './schemas.ts';
import {
  cancelCarnet,
  carnetDetail,
  carnetPdfByLink,
  carnetView,
  createCarnet,
  mailCarnet,
  settleCarnet,
  updateParcels,
} from './service.ts';

const tags = ['Billing: carnês'];
const write = { scope: 'charge.write' } as const;
const read = { scope: 'charge.read' } as const;

export const carnetRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const caller = (request: FastifyRequest) => billingCallerOf(ctx, request);
    const id = { params: CarnetIdParams };
    const parcel = { params: ParcelParams };
    const done = { 200: Done };
    const ok = { code: 200 };

    app.post(
      '/v1/carnet',
      {
        config: write,
        schema: {
          tags,
          summary: 'Create a carnê (monthly boletos)',
          body: CarnetCreate,
          response: { 200: CarnetCreated },
        },
      },
      async (request) => {
        const c = caller(request);
        return {
          code: 200,
          data: await ctx.db.tx(async (sql) => carnetView(sql, c, await createCarnet(sql, c, request.body))),
        };
      },
    );
    app.get(
      '/v1/carnet/:id',
      {
        config: read,
        schema: { tags, summary: 'A carnê, its parcels and history', ...id, response: { 200: CarnetDetail } },
      },
      async (request) => ({ code: 200, data: await carnetDetail(ctx.db, caller(request), request.params.id) }),
    );
    app.put(
      '/v1/carnet/:id/parcel/:parcel',
      {
        config: write,
        schema: { tags, summary: 'New due date of a parcel', ...parcel, body: UpdateBillet, response: done },
      },
      async (request) => {
        const { id: carnetId, parcel: n } = request.params;
        await ctx.db.tx((sql) =>
          updateParcels(sql, caller(request), carnetId, [{ parcel: n, expire_at: request.body.expire_at }]),
        );
        return ok;
      },
    );
    app.put(
      '/v1/carnet/:id/parcels',
      {
        config: write,
        schema: { tags, summary: 'New due dates of parcels', ...id, body: ParcelsUpdate, response: done },
      },
      async (request) => {
        await ctx.db.tx((sql) => updateParcels(sql, caller(request), request.params.id, request.body.parcels));
        return ok;
      },
    );
    app.put(
      '/v1/carnet/:id/metadata',
      {
        config: write,
        schema: { tags, summary: 'Set notification_url and custom_id', ...id, body: MetadataUpdate, response: done },
      },
      async (request) => {
        await ctx.db.tx((sql) => updateMetadata(sql, caller(request), request.params.id, request.body, 'carnet'));
        return ok;
      },
    );
    app.post(
      '/v1/carnet/:id/history',
      {
        config: write,
        schema: { tags, summary: 'Add a line to the history', ...id, body: HistoryBody, response: done },
      },
      async (request) => {
        await ctx.db.tx((sql) =>
          addHistory(sql, caller(request), request.params.id, request.body.description, 'carnet'),
        );
        return ok;
      },
    );
    app.post(
      '/v1/carnet/:id/resend',
      { config: write, schema: { tags, summary: 'E-mail the open parcels', ...id, body: Email, response: done } },
      async (request) => {
        await ctx.db.tx((sql) =>
          mailCarnet(sql, caller(request), mailerOf(ctx), request.params.id, request.body.email),
        );
        return ok;
      },
    );
    app.post(
      '/v1/carnet/:id/parcel/:parcel/resend',
      { config: write, schema: { tags, summary: 'E-mail one parcel', ...parcel, body: Email, response: done } },
      async (request) => {
        const { id: carnetId, parcel: n } = request.params;
        await ctx.db.tx((sql) => mailCarnet(sql, caller(request), mailerOf(ctx), carnetId, request.body.email, n));
        return ok;
      },
    );
    for (const [action, work, summary] of [
      ['settle', settleCarnet, 'marked paid by hand (settled)'],
      ['cancel', cancelCarnet, 'canceled'],
    ] as const) {
      app.put(
        `/v1/carnet/:id/${action}`,
        { config: write, schema: { tags, summary: `Every open parcel ${summary}`, ...id, response: done } },
        async (request) => {
          await ctx.db.tx((sql) => work(sql, caller(request), request.params.id));
          return ok;
        },
      );
      app.put(
        `/v1/carnet/:id/parcel/:parcel/${action}`,
        { config: write, schema: { tags, summary: `A parcel ${summary}`, ...parcel, response: done } },
        async (request) => {
          await ctx.db.tx((sql) => work(sql, caller(request), request.params.id, request.params.parcel));
          return ok;
        },
      );
    }
  };

/** The carnê's PDF (link, carnet_link, pdf.carnet): every parcel, on the pages listener. */
export const carnetPageRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/carne/:file',
      {
        schema: {
          tags: ['Pages'],
          summary: 'The PDF of a carnê, every parcel (404 page for an unknown link)',
          params: LinkParams,
          produces: ['application/pdf'],
        },
      },
      async (request, reply) => {
        const pdf = await carnetPdfByLink(ctx.db, request.params.file.replace(/\.pdf$/, ''));
        if (!pdf) return reply.code(404).type('text/html; charset=utf-8').send(notFoundPage('este carnê'));
        return reply
          .type('application/pdf')
          .header('content-disposition', 'inline; filename="carne.pdf"')
          .header('cache-control', 'no-store')
          .send(Buffer.from(pdf));
      },
    );
  };
