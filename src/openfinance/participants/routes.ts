/**
 * GET /v1/participantes (and /v1/participantes/, the path the SDK calls): the payer institutions, as the SDK's
 * ofListParticipants types them. `nome` filters by a part of the name; `organizacao`, `modalidade` and
 * `tipoPessoa` are accepted and do not narrow the list (every institution here offers automatic payments to
 * both kinds of person).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { listParticipants, type Participant } from './store.ts';

const ParticipantsQuery = Type.Object(
  {
    nome: Type.Optional(Type.String({ maxLength: 140 })),
    organizacao: Type.Optional(Type.Boolean()),
    modalidade: Type.Optional(Type.String({ maxLength: 64 })),
    tipoPessoa: Type.Optional(Type.Union([Type.Literal('PF'), Type.Literal('PJ')])),
  },
  { additionalProperties: false },
);

const ParticipantView = Type.Object({
  identificador: Type.String(),
  nome: Type.String(),
  descricao: Type.String(),
  portal: Type.String(),
  logo: Type.String(),
  organizacoes: Type.Array(Type.Object({ nome: Type.String(), cnpj: Type.String(), status: Type.String() })),
});

const view = (p: Participant) => ({
  identificador: p.identificador,
  nome: p.nome,
  descricao: p.descricao,
  portal: p.portal,
  logo: p.logo,
  organizacoes: [{ nome: p.nome, cnpj: p.cnpj, status: 'Active' }],
});

export const participantRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v1/participantes',
      {
        config: { scope: 'gn.opb.automatic.consent.read', invalidRequest: 'parametro_invalido' },
        schema: {
          tags: ['Open Finance'],
          summary: 'List the payer institutions an enrolment can name',
          querystring: ParticipantsQuery,
          response: { 200: Type.Object({ participantes: Type.Array(ParticipantView) }) },
        },
      },
      async (request) => {
        const all = await listParticipants(ctx.db, ctx.config.environment === 'sandbox');
        const nome = request.query.nome?.toLocaleLowerCase('pt-BR');
        return {
          participantes: all.filter((p) => !nome || p.nome.toLocaleLowerCase('pt-BR').includes(nome)).map(view),
        };
      },
    );
  };
