/**
 * The bill-payment API (the SDK's `PAGAMENTOS` family: payDetailBarCode, payRequestBarCode, payDetailPayment,
 * payListPayments, payConfigWebhook, payListWebhook, payDeleteWebhook). Named errors ({nome, mensagem}).
 *
 * The SDK sends this family to its own host (`pagarcontas…/v1`); pixd serves it at its one origin with the
 * paths as they are, as it does Open Finance (docs/bill-payments.md, "Routing"). The two paths other families
 * could share are told apart without a prefix: `/v1/webhook` by method (this family PUT, GET, DELETE on the path
 * itself; the account-opening family POST, and GET and DELETE below it), and `/v1/:idPagamento` by shape (digits
 * only, so no other family's path — all static, which win anyway — and no unknown path is taken by it).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { SkipMtlsHeaders } from '../../pix/webhook/schemas.ts';
import { parseSkipHeader } from '../../pix/webhook/service.ts';
import {
  BarcodeDetail,
  BillWebhookBody,
  BillWebhookList,
  BillWebhookListQuery,
  CodBarrasParams,
  ID_PAGAMENTO_PATTERN,
  IdPagamentoParams,
  PayBody,
  PaymentRequested,
  PaymentView,
  Summary,
  SummaryQuery,
} from './schemas.ts';
import { detailBarcode, readPayment, requestPayment, summarise } from './service.ts';
import { listBillWebhooks, registerBillWebhook, removeBillWebhook } from './webhook.ts';

const tags = ['Pagamento de contas'];

export const billPaymentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v1/codBarras/:codBarras',
      {
        config: { scope: 'gn.barcode.read', invalidRequest: 'codigo_barras_invalido' },
        schema: {
          tags,
          summary: 'Decode a barcode or linha digitável: amount, due date, beneficiary, whether it can be paid',
          params: CodBarrasParams,
          response: { 200: BarcodeDetail },
        },
      },
      async (request) => detailBarcode(ctx.db, callerOf(ctx, request), ctx.billInstitution, request.params.codBarras),
    );

    app.post(
      '/v1/codBarras/:codBarras',
      {
        config: { scope: 'gn.barcode.pay.write', rateLimited: true, invalidRequest: 'pagamento_invalido' },
        schema: {
          tags,
          summary: "Pay a bill from the account's balance, today or on a later date",
          params: CodBarrasParams,
          body: PayBody,
          response: { 200: PaymentRequested },
        },
      },
      async (request) =>
        ctx.db.tx((sql) =>
          requestPayment(sql, callerOf(ctx, request), ctx.billInstitution, request.params.codBarras, request.body),
        ),
    );

    app.get(
      '/v1/resumo',
      {
        config: { scope: 'gn.barcode.pay.read', invalidRequest: 'parametro_invalido' },
        schema: {
          tags,
          summary: 'Summarise the payments requested in a period, by outcome',
          querystring: SummaryQuery,
          response: { 200: Summary },
        },
      },
      async (request) => summarise(ctx.db, callerOf(ctx, request), request.query),
    );

    app.put(
      '/v1/webhook',
      {
        config: { scope: 'payment.webhook.write', invalidRequest: 'url_webhook' },
        schema: {
          tags,
          summary: 'Register the bill-payment webhook (handshake first: without, then with the client certificate)',
          headers: SkipMtlsHeaders,
          body: BillWebhookBody,
          response: { 201: Type.Object({ url: Type.String() }) },
        },
      },
      async (request, reply) => {
        const saved = await registerBillWebhook(
          { db: ctx.db, transport: ctx.webhooks.transport },
          callerOf(ctx, request),
          request.body,
          parseSkipHeader(request.headers['x-skip-mtls-checking']),
        );
        return reply.status(201).send(saved);
      },
    );

    app.get(
      '/v1/webhook',
      {
        config: { scope: 'payment.webhook.read', invalidRequest: 'parametro_invalido' },
        schema: {
          tags,
          summary: 'List the bill-payment webhook registered in a period',
          querystring: BillWebhookListQuery,
          response: { 200: BillWebhookList },
        },
      },
      async (request) => listBillWebhooks(ctx.db, callerOf(ctx, request), request.query),
    );

    app.delete(
      '/v1/webhook',
      {
        config: { scope: 'payment.webhook.write', invalidRequest: 'url_webhook' },
        schema: { tags, summary: 'Remove the bill-payment webhook', body: BillWebhookBody },
      },
      async (request, reply) => {
        await removeBillWebhook(ctx.db, callerOf(ctx, request), request.body);
        return reply.status(204).send();
      },
    );

    app.get(
      `/v1/:idPagamento(${ID_PAGAMENTO_PATTERN})`,
      {
        config: { scope: 'gn.barcode.pay.read' },
        schema: {
          tags,
          summary: 'Read a bill payment: its status, protocol or reason',
          params: IdPagamentoParams,
          response: { 200: PaymentView },
        },
      },
      async (request) => readPayment(ctx.db, callerOf(ctx, request), request.params.idPagamento),
    );
  };
