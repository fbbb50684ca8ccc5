/**
 * The operator's list of payer institutions, used outside the sandbox (the sandbox has its fixed fictitious
 * ones): PUT /operator/open-finance/participantes/:identificador adds or replaces one, DELETE removes it.
 * Mounted inside the operator routes, behind the operator secret.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { isValidCnpj } from '../../platform/documents.ts';
import { ofError, ofInvalid } from '../shared.ts';
import { removeParticipant, saveParticipant } from './store.ts';

const Params = Type.Object({ identificador: Type.String({ minLength: 1, maxLength: 64 }) });
const ParticipantBody = Type.Object(
  {
    ispb: Type.String({ pattern: '^\\d{8}$' }),
    nome: Type.String({ minLength: 1, maxLength: 140 }),
    cnpj: Type.String({ pattern: '^\\d{14}$' }),
    descricao: Type.Optional(Type.String({ maxLength: 400 })),
    portal: Type.Optional(Type.String({ maxLength: 400 })),
    logo: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: false },
);
const schema = { tags: ['Operator'], hide: true, params: Params };

export const participantOperatorRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/operator/open-finance/participantes/:identificador',
      { config: { invalidRequest: 'participante_invalido' }, schema: { ...schema, body: ParticipantBody } },
      async (request) => {
        const { body } = request;
        if (!isValidCnpj(body.cnpj)) throw ofInvalid('participante_invalido', 'cnpj', 'dígito verificador inválido.');
        const participant = {
          identificador: request.params.identificador,
          ispb: body.ispb,
          nome: body.nome,
          cnpj: body.cnpj,
          descricao: body.descricao ?? '',
          portal: body.portal ?? '',
          logo: body.logo ?? '',
        };
        await saveParticipant(ctx.db, participant);
        return participant;
      },
    );
    app.delete('/operator/open-finance/participantes/:identificador', { schema }, async (request, reply) => {
      if (!(await removeParticipant(ctx.db, request.params.identificador)))
        throw ofError(
          404,
          'participante_nao_encontrado',
          `Participante ${request.params.identificador} não encontrado.`,
        );
      return reply.status(204).send();
    });
  };
