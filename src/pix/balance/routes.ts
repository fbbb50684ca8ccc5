/** `GET /v2/gn/saldo/`: the balance, derived from the journal (never stored). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { balanceCents, ledgerCode } from '../../platform/ledger/ledger.ts';
import { formatAmount } from '../../platform/money.ts';

const BalanceView = Type.Object({
  saldo: Type.String(),
  bloqueios: Type.Optional(Type.Object({ judicial: Type.String(), med: Type.String(), total: Type.String() })),
});

export const balanceRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v2/gn/saldo',
      {
        config: { scope: 'gn.balance.read' },
        schema: {
          tags: ['Saldo'],
          summary: 'Account balance, optionally with blocked amounts',
          querystring: Type.Object({ bloqueios: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
          response: { 200: BalanceView },
        },
      },
      async (request) => {
        const accountId = request.principal.accountId;
        const saldo = formatAmount(await balanceCents(ctx.db, ledgerCode.available(accountId)));
        if (!request.query.bloqueios) return { saldo };
        const judicial = await balanceCents(ctx.db, ledgerCode.blocked(accountId, 'judicial'));
        const med = await balanceCents(ctx.db, ledgerCode.blocked(accountId, 'med'));
        return {
          saldo,
          bloqueios: { judicial: formatAmount(judicial), med: formatAmount(med), total: formatAmount(judicial + med) },
        };
      },
    );
  };
