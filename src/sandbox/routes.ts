/** Sandbox-only routes: mounted when PIXD_ENV=sandbox, absent in production. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { CLOCK_ADVANCE_MAX_SECONDS, advanceClock, resetClock } from './clock.ts';
import { Amount, Chave, Cnpj, Cpf, Txid } from '../pix/shared/schemas.ts';
import { PixView } from '../pix/received/schemas.ts';
import { devedorViolations } from '../pix/shared/devedor.ts';
import { invalid } from '../platform/errors.ts';
import { SANDBOX_AUTOPAY, autoPaymentHandler, autoPaymentHook } from './settlement.ts';
import { sandboxPay } from './pay.ts';
import { blockBalance } from './blocks.ts';
import { parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import { scheduleSandboxRoutes } from '../pix/schedules/creation-routes.ts';

const ClockView = Type.Object({ agora: Type.String({ format: 'date-time' }), deslocamentoSegundos: Type.Number() });
const tags = ['Sandbox'];

export const sandboxRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    ctx.outbox.register(SANDBOX_AUTOPAY.topic, autoPaymentHandler(ctx.db, ctx.clock));
    // The fictitious payer joins every charge creation (API and batches) through the core's extension point.
    ctx.chargeCreatedHooks.push(autoPaymentHook);
    const view = () => ({ agora: ctx.clock.now().toISOString(), deslocamentoSegundos: ctx.clock.offset / 1000 });
    await base.register(scheduleSandboxRoutes(ctx));

    app.get(
      '/sandbox/clock',
      { schema: { tags, summary: 'The service clock (sandbox)', response: { 200: ClockView } } },
      async () => view(),
    );

    app.post(
      '/sandbox/clock/advance',
      {
        schema: {
          tags,
          summary: 'Move the service clock forward (sandbox): expiry, due dates and retries follow it',
          body: Type.Object(
            { segundos: Type.Integer({ minimum: 1, maximum: CLOCK_ADVANCE_MAX_SECONDS }) },
            { additionalProperties: false },
          ),
          response: { 200: ClockView },
        },
      },
      async (request) => {
        await advanceClock(ctx.db, ctx.clock, request.body.segundos);
        return view();
      },
    );

    app.post(
      '/sandbox/clock/reset',
      { schema: { tags, summary: 'Put the service clock back to real time (sandbox)', response: { 200: ClockView } } },
      async () => {
        await resetClock(ctx.db, ctx.clock);
        return view();
      },
    );

    app.post(
      '/sandbox/pix/pay',
      {
        config: { invalidRequest: 'PagamentoInvalido', propertyRoot: 'pagamento' },
        schema: {
          tags,
          summary:
            'Pay a charge, a QR code or a key as a fictitious payer (sandbox), with the validation of a real payment',
          body: Type.Object(
            {
              txid: Type.Optional(Txid),
              pixCopiaECola: Type.Optional(Type.String({ maxLength: 512 })),
              chave: Type.Optional(Chave),
              conta: Type.Optional(
                Type.String({
                  pattern: `^\\d{1,${LIMITS.contaMaxDigits}}$`,
                  description: 'Pay by bank data: the receiving account number.',
                }),
              ),
              valor: Type.Optional(Amount),
              pagador: Type.Optional(
                Type.Object(
                  {
                    nome: Type.String({ minLength: 1, maxLength: 200 }),
                    cpf: Type.Optional(Cpf),
                    cnpj: Type.Optional(Cnpj),
                  },
                  { additionalProperties: false },
                ),
              ),
              infoPagador: Type.Optional(Type.String({ maxLength: 140 })),
            },
            { additionalProperties: false },
          ),
          response: { 201: PixView },
        },
      },
      async (request, reply) => {
        const payerViolations = request.body.pagador
          ? devedorViolations(request.body.pagador, 'pagamento', true).map((v) => ({
              ...v,
              property: v.property.replace('.devedor', '.pagador'),
            }))
          : [];
        if (payerViolations.length) throw invalid('PagamentoInvalido', 'Pagador inválido.', payerViolations);
        // No transaction here: the engine opens one only when its settlement path cannot be used.
        const view = await sandboxPay(ctx.db, request.principal.accountId, ctx.clock.now(), request.body);
        return reply.status(201).send(view);
      },
    );

    app.post(
      '/sandbox/saldo/bloqueios',
      {
        config: { invalidRequest: 'BloqueioInvalido' },
        schema: {
          tags,
          summary: 'Block part of the available balance (sandbox): judicial or MED',
          body: Type.Object(
            { tipo: Type.Union([Type.Literal('judicial'), Type.Literal('med')]), valor: Amount },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        await ctx.db.tx((sql) =>
          blockBalance(
            sql,
            request.principal.accountId,
            request.body.tipo,
            parseAmount(request.body.valor),
            ctx.clock.now(),
          ),
        );
        return reply.status(201).send({ tipo: request.body.tipo, valor: request.body.valor });
      },
    );
  };
