/**
 * `/sandbox/falhas`: the caller's faults on demand (docs/faults.md). `PUT /sandbox/falhas/:tipo` sets one
 * (replacing that kind's), `GET` lists them, `DELETE` clears one kind or all; `POST /sandbox/reset` clears
 * them too. Mounted with the other sandbox routes (problem format, scope sandbox.write).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import type { FaultKind } from '../../platform/faults.ts';
import { FAULT_KINDS, FAULT_KIND_NAMES } from './kinds.ts';
import { clearFaults, faultBook, listFaults, setFault } from './book.ts';

const tags = ['Sandbox'];
const FaultView = Type.Object({
  tipo: Type.String(),
  parametros: Type.Record(Type.String(), Type.Unknown()),
  vezesRestantes: Type.Optional(Type.Integer({ description: 'Occurrences it still answers (absent: every one).' })),
  ate: Type.Optional(Type.String({ format: 'date-time', description: "When it ends, on the account's clock." })),
  criacao: Type.String({ format: 'date-time' }),
});
const Kind = Type.Union(FAULT_KIND_NAMES.map((kind) => Type.Literal(kind)));
const invalid = { invalidRequest: 'FalhaInvalida' } as const;

export const sandboxFaultRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const book = faultBook(ctx);

    for (const kind of FAULT_KIND_NAMES)
      app.put(
        `/sandbox/falhas/${kind}`,
        {
          config: invalid,
          schema: {
            tags,
            summary: `Fault on demand (sandbox): ${FAULT_KINDS[kind].summary}`,
            body: FAULT_KINDS[kind].body,
            response: { 200: FaultView },
          },
        },
        async (request) => setFault(book, request.principal.accountId, kind, request.body as Record<string, unknown>),
      );

    app.get(
      '/sandbox/falhas',
      {
        schema: {
          tags,
          summary: "The caller's faults on demand in force (sandbox)",
          response: { 200: Type.Object({ falhas: Type.Array(FaultView) }) },
        },
      },
      async (request) => ({ falhas: await listFaults(book, request.principal.accountId) }),
    );

    app.delete(
      '/sandbox/falhas/:tipo',
      {
        config: invalid,
        schema: {
          tags,
          summary: "Clear one of the caller's faults on demand (sandbox)",
          params: Type.Object({ tipo: Kind }),
          response: { 200: Type.Object({ removidas: Type.Integer() }) },
        },
      },
      async (request) => ({
        removidas: await clearFaults(book, request.principal.accountId, request.params.tipo as FaultKind),
      }),
    );

    app.delete(
      '/sandbox/falhas',
      {
        schema: {
          tags,
          summary: "Clear every fault on demand of the caller's account (sandbox)",
          response: { 200: Type.Object({ removidas: Type.Integer() }) },
        },
      },
      async (request) => ({ removidas: await clearFaults(book, request.principal.accountId) }),
    );
  };
