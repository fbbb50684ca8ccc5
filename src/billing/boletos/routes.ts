/**
 * Boleto endpoints of the billing family (`/v1/charge/:id/billet…`, settle, history, balance sheet, the charge
 * list), the sandbox's mail outbox, and the boleto's PDF on the pages listener (no token: the link is the secret).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { LIMITS } from '../../platform/limits.ts';
import { brasiliaDateTime } from '../../platform/calendar.ts';
import { notFoundPage } from '../../platform/html.ts';
import { ChargeIdParams, Done } from '../charges/schemas.ts';
import { addHistory, settleCharge } from '../charges/service.ts';
import { listCharges } from '../charges/list.ts';
import { billingCallerOf } from '../shared/caller.ts';
import { mailOf } from '../mail/store.ts';
import { mailerOf as mailerOfConfig, type Mailer } from '../mail/service.ts';
import {
  BalanceSheet,
  ChargeList,
  ChargeListQuery,
  Email,
  HistoryBody,
  LinkParams,
  MailList,
  UpdateBillet,
} from './schemas.ts';
import { boletoPdfByLink, defineBalanceSheet, resendBillet, updateBillet } from './service.ts';

const tags = ['Billing: boletos'];
const write = { scope: 'charge.write' } as const;
const read = { scope: 'charge.read' } as const;

/** SMTP when configured, else the sandbox's mailbox, else refused (mail/service.ts). */
export const mailerOf = (ctx: AppContext): Mailer => mailerOfConfig(ctx.config);

export const boletoRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const caller = (request: FastifyRequest) => billingCallerOf(ctx, request);
    const id = { params: ChargeIdParams };
    const done = { 200: Done };

    app.put(
      '/v1/charge/:id/billet',
      {
        config: write,
        schema: { tags, summary: 'New due date of a boleto', ...id, body: UpdateBillet, response: done },
      },
      async (request) => {
        await ctx.db.tx((sql) => updateBillet(sql, caller(request), request.params.id, request.body.expire_at));
        return { code: 200 };
      },
    );
    app.put(
      '/v1/charge/:id/settle',
      { config: write, schema: { tags, summary: 'Mark a boleto paid by hand (settled)', ...id, response: done } },
      async (request) => {
        await ctx.db.tx((sql) => settleCharge(sql, caller(request), request.params.id));
        return { code: 200 };
      },
    );
    app.post(
      '/v1/charge/:id/history',
      {
        config: write,
        schema: { tags, summary: 'Add a line to the history', ...id, body: HistoryBody, response: done },
      },
      async (request) => {
        await ctx.db.tx((sql) => addHistory(sql, caller(request), request.params.id, request.body.description));
        return { code: 200 };
      },
    );
    app.post(
      '/v1/charge/:id/balance-sheet',
      {
        config: write,
        schema: { tags, summary: 'Print a balance sheet with the boleto', ...id, body: BalanceSheet, response: done },
      },
      async (request) => {
        await ctx.db.tx((sql) => defineBalanceSheet(sql, caller(request), request.params.id, request.body));
        return { code: 200 };
      },
    );
    app.post(
      '/v1/charge/:id/billet/resend',
      { config: write, schema: { tags, summary: 'E-mail the boleto', ...id, body: Email, response: done } },
      async (request) => {
        await ctx.db.tx((sql) =>
          resendBillet(sql, caller(request), mailerOf(ctx), request.params.id, request.body.email),
        );
        return { code: 200 };
      },
    );
    app.get(
      '/v1/charges',
      {
        config: read,
        schema: {
          tags,
          summary: 'List charges of a type between two dates',
          querystring: ChargeListQuery,
          response: { 200: ChargeList },
        },
      },
      async (request) => ({ code: 200, data: await listCharges(ctx.db, caller(request), request.query) }),
    );

    if (ctx.config.environment === 'sandbox') {
      app.get(
        '/sandbox/billing/mail',
        {
          config: read,
          schema: {
            tags: ['Sandbox'],
            summary: "The account's e-mails (sandbox mail outbox)",
            response: { 200: MailList },
          },
        },
        async (request) => ({
          code: 200,
          data: (await mailOf(ctx.db, request.principal.accountId, LIMITS.billingChargeListLimitDefault)).map((m) => ({
            id: Number(m.id),
            to: m.to_address,
            subject: m.subject,
            body: m.body,
            reference: m.reference,
            status: m.status,
            attempts: Number(m.attempts),
            ...(m.error ? { error: m.error } : {}),
            created_at: brasiliaDateTime(m.created_at),
          })),
        }),
      );
    }
  };

/** The boleto's PDF (link, billet_link and pdf.charge): a page a payer opens, on the pages listener. */
export const boletoPageRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/boleto/:file',
      {
        schema: {
          tags: ['Pages'],
          summary: 'The PDF of a boleto (404 page for an unknown link)',
          params: LinkParams,
          produces: ['application/pdf'],
        },
      },
      async (request, reply) => {
        const pdf = await boletoPdfByLink(ctx.db, request.params.file.replace(/\.pdf$/, ''));
        if (!pdf) return reply.code(404).type('text/html; charset=utf-8').send(notFoundPage('este boleto'));
        return reply
          .type('application/pdf')
          .header('content-disposition', 'inline; filename="boleto.pdf"')
          .header('cache-control', 'no-store')
          .send(Buffer.from(pdf));
      },
    );
  };
