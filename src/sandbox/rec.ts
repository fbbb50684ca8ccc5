/**
 * The payer's side of automatic Pix in the sandbox (docs/automatic-pix.md): a person testing an integration
 * plays the payer who approves a recurrence (the QR code of journey 2 or 3 scanned in their app) or cancels
 * it later. Both go through the recurrence's one state machine, so they produce exactly the status changes
 * and `/rec` webhooks a real payer's institution would.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { invalid } from '../platform/errors.ts';
import { SANDBOX_PAYER_ISPB } from '../platform/institution.ts';
import { randomAlphanumeric } from '../platform/ids.ts';
import { Cnpj, Cpf } from '../pix/shared/schemas.ts';
import { RecCompleta, RecIdParams } from '../pix/rec/schemas.ts';
import { REC_INVALID, changeRecStatus, ownRec, recView, type RecChange } from '../pix/rec/service.ts';
import type { RecRow } from '../pix/rec/store.ts';
import { SolicRecCompleta, SolicRecIdParams } from '../pix/solicrec/schemas.ts';
import { SOLICREC_INVALID, answerSolicRec } from '../pix/solicrec/service.ts';

const tags = ['Sandbox'];
const strict = { additionalProperties: false } as const;

const Pagador = Type.Object(
  {
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    nome: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
    ispbParticipante: Type.Optional(Type.String({ pattern: '^[0-9A-Z]{8}$' })),
    agencia: Type.Optional(Type.String({ pattern: '^\\d{1,4}$' })),
    conta: Type.Optional(Type.String({ pattern: '^\\d{1,20}$' })),
  },
  strict,
);
const ApproveBody = Type.Object({ pagador: Type.Optional(Pagador) }, strict);

/** The payer who approves: as given, or the recurrence's debtor at the sandbox payer's institution. */
export function payerOf(row: RecRow, given: typeof Pagador.static = {}) {
  if (given.cpf && given.cnpj)
    throw invalid(REC_INVALID, 'Informe cpf ou cnpj do pagador, não ambos.', [
      { property: 'pagador.cpf', reason: 'cpf e cnpj informados.' },
    ]);
  const devedor = row.body.vinculo.devedor;
  const documento =
    given.cpf || given.cnpj
      ? { ...(given.cpf && { cpf: given.cpf }), ...(given.cnpj && { cnpj: given.cnpj }) }
      : { ...(devedor.cpf && { cpf: devedor.cpf }), ...(devedor.cnpj && { cnpj: devedor.cnpj }) };
  return {
    ispbParticipante: given.ispbParticipante ?? SANDBOX_PAYER_ISPB,
    ...documento,
    nome: given.nome ?? devedor.nome,
    agencia: given.agencia ?? '0001',
    conta: given.conta ?? randomAlphanumeric(8, '0123456789'),
  };
}

export const sandboxRecRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const config = { invalidRequest: REC_INVALID, propertyRoot: 'rec' } as const;

    /** The payer changes the caller's recurrence through its one state machine. */
    const asPayer = (request: FastifyRequest<{ Params: { idRec: string } }>, change: (row: RecRow) => RecChange) => {
      const accountId = request.principal.accountId;
      const now = ctx.clock.forAccount(accountId).now();
      return ctx.db.tx(async (sql) => {
        const row = await ownRec(sql, accountId, request.params.idRec, true);
        return recView(sql, await changeRecStatus(sql, row, change(row), now), ctx.config.publicUrl);
      });
    };

    app.post(
      '/sandbox/rec/:idRec/aprovar',
      {
        config,
        // The body is optional: no body is an empty one.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          summary: 'Approve a recurrence as its payer, who scanned its QR code (sandbox)',
          params: RecIdParams,
          body: ApproveBody,
          response: { 200: RecCompleta },
        },
      },
      async (request) =>
        asPayer(request, (row) => ({
          status: 'APROVADA',
          pagador: payerOf(row, request.body.pagador),
          tipoJornada: row.txid ? 'JORNADA_3' : 'JORNADA_2',
        })),
    );

    app.post(
      '/sandbox/rec/:idRec/cancelar',
      {
        config,
        schema: {
          tags,
          summary: 'Cancel a recurrence as its payer (sandbox)',
          params: RecIdParams,
          response: { 200: RecCompleta },
        },
      },
      async (request) =>
        asPayer(request, () => ({
          status: 'CANCELADA',
          encerramento: {
            cancelamento: {
              solicitante: 'USUARIO_PAGADOR',
              codigo: 'ACCL',
              descricao: 'Cancelamento solicitado pelo usuário pagador.',
            },
          },
        })),
    );

    for (const [path, accepted, summary] of [
      ['aceitar', true, "Accept a request to confirm a recurrence as the payer's institution (sandbox)"],
      ['rejeitar', false, "Reject a request to confirm a recurrence as the payer's institution (sandbox)"],
    ] as const)
      app.post(
        `/sandbox/solicrec/:idSolicRec/${path}`,
        {
          config: { invalidRequest: SOLICREC_INVALID, propertyRoot: 'solicrec' },
          schema: { tags, summary, params: SolicRecIdParams, response: { 200: SolicRecCompleta } },
        },
        async (request) => {
          const accountId = request.principal.accountId;
          const now = ctx.clock.forAccount(accountId).now();
          return ctx.db.tx((sql) => answerSolicRec(sql, accountId, request.params.idSolicRec, accepted, now));
        },
      );
  };
