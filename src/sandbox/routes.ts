/** Sandbox-only routes: mounted when PIXD_ENV=sandbox, absent in production. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { CLOCK_ADVANCE_MAX_SECONDS, advanceAccountClock, resetAccountClock } from './clock.ts';
import { Amount, Chave, Cnpj, Cpf, Txid } from '../pix/shared/schemas.ts';
import { PixView } from '../pix/received/schemas.ts';
import { devedorViolations } from '../pix/shared/devedor.ts';
import { invalid } from '../platform/errors.ts';
import { sandboxPay } from './pay.ts';
import { sandboxPayBoleto } from './boleto-pay.ts';
import { blockBalance } from './blocks.ts';
import { formatAmount, parseAmount } from '../platform/money.ts';
import { LIMITS } from '../platform/limits.ts';
import { scheduleSandboxRoutes } from '../pix/schedules/creation-routes.ts';
import { resetAccount } from './reset.ts';
import { faultBook } from './faults/book.ts';

const BlockKind = Type.Union([Type.Literal('judicial'), Type.Literal('med')]);

const ClockView = Type.Object({ agora: Type.String({ format: 'date-time' }), deslocamentoSegundos: Type.Number() });
const ResetView = Type.Object({
  conta: Type.String(),
  saldoRetirado: Type.String({ description: "What the account's balances held, taken back to zero." }),
  removidos: Type.Record(Type.String(), Type.Integer(), { description: 'Rows removed, per table.' }),
  relogio: ClockView,
});
const tags = ['Sandbox'];

export const sandboxRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    // The caller's own clock: each account moves its own, nobody else's (issue 13, item 10).
    const view = (accountId: number) => ({
      agora: ctx.clock.forAccount(accountId).now().toISOString(),
      deslocamentoSegundos: ctx.clock.accountOffsetMs(accountId) / 1000,
    });
    await base.register(scheduleSandboxRoutes(ctx));
    // The sandbox's institution in the node (spi-institution.ts) stops before the database closes.
    base.addHook('onClose', async () => ctx.spiRelay?.stop());

    app.get(
      '/sandbox/clock',
      { schema: { tags, summary: "The caller's account clock (sandbox)", response: { 200: ClockView } } },
      async (request) => view(request.principal.accountId),
    );

    app.post(
      '/sandbox/clock/advance',
      {
        schema: {
          tags,
          summary:
            "Move the caller's account clock forward (sandbox): its expiry, due dates, schedules and retries follow it, no other account's",
          body: Type.Object(
            { segundos: Type.Integer({ minimum: 1, maximum: CLOCK_ADVANCE_MAX_SECONDS }) },
            { additionalProperties: false },
          ),
          response: { 200: ClockView },
        },
      },
      async (request) => {
        await advanceAccountClock(ctx.db, ctx.clock, request.principal.accountId, request.body.segundos);
        return view(request.principal.accountId);
      },
    );

    app.post(
      '/sandbox/clock/reset',
      {
        schema: {
          tags,
          summary: "Put the caller's account clock back to real time (sandbox)",
          response: { 200: ClockView },
        },
      },
      async (request) => {
        await resetAccountClock(ctx.db, ctx.clock, request.principal.accountId);
        return view(request.principal.accountId);
      },
    );

    app.post(
      '/sandbox/reset',
      {
        schema: {
          tags,
          summary:
            "Put the caller's account back as it was created (sandbox): no charges, Pix, sends, webhooks or settings of its own, a zero balance, its clock on real time; same credentials",
          response: { 200: ResetView },
        },
      },
      async (request) => {
        const accountId = request.principal.accountId;
        const outcome = await resetAccount(ctx.db, ctx.clock, accountId);
        // Its faults went with the reset: this node forgets them now, the others within a second.
        faultBook(ctx).drop(accountId);
        return {
          conta: outcome.conta,
          saldoRetirado: formatAmount(outcome.balanceCents),
          removidos: outcome.removed,
          relogio: view(accountId),
        };
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
          // `status: WAITING`: paid to a participant's key, held until the participant confirms it.
          response: {
            201: Type.Composite([PixView, Type.Object({ status: Type.Optional(Type.Literal('WAITING')) })]),
          },
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
        const view = await sandboxPay(ctx, request.principal.accountId, request.body);
        return reply.status(201).send(view);
      },
    );

    app.post(
      '/sandbox/boleto/pay',
      {
        config: { invalidRequest: 'PagamentoInvalido', propertyRoot: 'pagamento' },
        schema: {
          tags,
          summary:
            'Pay a pixd boleto by barcode or linha digitável as a fictitious payer (credited the next business day)',
          body: Type.Object(
            {
              codBarras: Type.String({
                minLength: 44,
                maxLength: 60,
                description: 'Barcode (44) or linha digitável (47)',
              }),
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
            },
            { additionalProperties: false },
          ),
          response: {
            201: Type.Object({
              codigoBarras: Type.String(),
              linhaDigitavel: Type.String(),
              valor: Type.String(),
              beneficiario: Type.Object({ nome: Type.String(), documento: Type.String() }),
              chargeId: Type.Integer(),
              pagoEm: Type.String(),
              creditoEm: Type.String(),
            }),
          },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await ctx.db.tx((sql) => sandboxPayBoleto(sql, ctx.clock, request.body))),
    );

    app.post(
      '/sandbox/saldo/bloqueios',
      {
        config: { invalidRequest: 'BloqueioInvalido' },
        schema: {
          tags,
          summary: 'Block part of the available balance (sandbox): judicial or MED',
          body: Type.Object({ tipo: BlockKind, valor: Amount }, { additionalProperties: false }),
          response: { 201: Type.Object({ tipo: BlockKind, valor: Amount }) },
        },
      },
      async (request, reply) => {
        await ctx.db.tx((sql) =>
          blockBalance(
            sql,
            request.principal.accountId,
            request.body.tipo,
            parseAmount(request.body.valor),
            ctx.clock.forAccount(request.principal.accountId).now(),
          ),
        );
        return reply.status(201).send({ tipo: request.body.tipo, valor: request.body.valor });
      },
    );
  };
