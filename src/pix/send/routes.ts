/**
 * Sent Pix routes. The send itself (`PUT /v2/gn/pix/:idEnvio`, and `/v3/...` the official SDK calls) answers
 * named errors `{nome, mensagem}`, as Efí documents for it; the reads and the BR Code payment answer problem
 * objects, as the SDK documents for them (families.ts registers each in its family). docs/sending.md.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { ApiError } from '../../platform/errors.ts';
import { callerOf } from '../shared/caller.ts';
import { SendRefused } from './external.ts';
import {
  IdEnvioParams,
  QrCodePayRequest,
  SendRequest,
  SendView,
  SentE2eParams,
  SentList,
  SentListQuery,
  SentPixRead,
} from './schemas.ts';
import { SENT_INVALID_QUERY, lookUpKey, listSentPix, readSentByE2e, readSentByIdEnvio, sendPix } from './service.ts';
import { payQrCode, qrCodeReader } from './qrcode.ts';
import { findSentByIdEnvio } from './store.ts';

const tags = ['Pix enviados'];
/** Problem name of a refused send in the problem family; the stable code is in `violacoes[0].razao`. */
export const SEND_INVALID = 'PixEnvioInvalido';

export async function refusing<T>(format: 'named' | 'problem', work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof SendRefused)) throw error;
    if (format === 'named')
      throw new ApiError(error.status, error.code, error.message, [
        { property: error.property, reason: error.message },
      ]);
    throw new ApiError(error.status, SEND_INVALID, error.message, [{ property: error.property, reason: error.code }]);
  }
}

/** The send by key or bank data: named error format. */
export const sendRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const deps = { external: ctx.externalInstitution, faults: ctx.faults };
    const send =
      (sameOwner: boolean) =>
      async (
        request: FastifyRequest<{ Params: Static<typeof IdEnvioParams>; Body: SendRequest }>,
        reply: FastifyReply,
      ) => {
        const caller = callerOf(ctx, request);
        const { idEnvio } = request.params;
        const result = await refusing('named', async () => {
          await lookUpKey(ctx.db, caller, deps, idEnvio, request.body);
          return ctx.db.tx((sql) => sendPix(sql, caller, deps, idEnvio, request.body, { sameOwner }));
        });
        return reply.status(201).send(result.view);
      };
    const schema = { tags, params: IdEnvioParams, body: SendRequest, response: { 201: SendView } };
    const config = { scope: 'pix.send', rateLimited: true } as const;
    for (const version of ['v2', 'v3'])
      app.put(
        `/${version}/gn/pix/:idEnvio`,
        {
          config,
          schema: {
            ...schema,
            summary: 'Send a Pix by key or bank data (idempotent per idEnvio); the outcome comes by webhook',
          },
        },
        send(false),
      );
    app.put(
      '/v2/gn/pix/:idEnvio/mesma-titularidade',
      {
        config,
        schema: {
          ...schema,
          summary:
            "Send a Pix to another account of the payer's own CPF/CNPJ (idempotent per idEnvio); others are refused",
        },
      },
      send(true),
    );
  };

/** Reads of sent Pix and the BR Code payment: problem format. */
export const sentPixRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const read = { scope: 'gn.pix.send.read', invalidRequest: SENT_INVALID_QUERY } as const;
    const deps = { external: ctx.externalInstitution };
    const reader = qrCodeReader(ctx);

    app.put(
      '/v2/gn/pix/:idEnvio/qrcode',
      {
        config: { scope: 'pix.send', rateLimited: true, invalidRequest: SEND_INVALID },
        schema: {
          tags,
          summary: 'Pay a BR Code (pixCopiaECola), idempotent per idEnvio; the outcome comes by webhook',
          params: IdEnvioParams,
          body: QrCodePayRequest,
          response: { 201: SendView },
        },
      },
      async (request, reply) => {
        const caller = callerOf(ctx, request);
        const { idEnvio } = request.params;
        const result = await refusing('problem', async () => {
          // The code is read (a dynamic one fetched and verified) before the transaction, so no lock waits on the
          // network; a used idEnvio skips it, so a replay answers the first send even once its charge is paid.
          const used = await findSentByIdEnvio(ctx.db, caller.accountId, idEnvio);
          const code = used ? undefined : await reader(request.body.pixCopiaECola);
          return ctx.db.tx((sql) => payQrCode(sql, caller, deps, idEnvio, request.body, code));
        });
        return reply.status(201).send(result.view);
      },
    );

    app.get(
      '/v2/gn/pix/enviados/id-envio/:idEnvio',
      {
        config: read,
        schema: { tags, summary: 'Read a sent Pix by idEnvio', params: IdEnvioParams, response: { 200: SentPixRead } },
      },
      async (request) => readSentByIdEnvio(ctx.db, callerOf(ctx, request), request.params.idEnvio),
    );

    app.get(
      '/v2/gn/pix/enviados/:e2eid',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a sent Pix by end-to-end id',
          params: SentE2eParams,
          response: { 200: SentPixRead },
        },
      },
      async (request) => readSentByE2e(ctx.db, callerOf(ctx, request), request.params.e2eid),
    );

    app.get(
      '/v2/gn/pix/enviados',
      {
        config: read,
        schema: { tags, summary: 'List sent Pix', querystring: SentListQuery, response: { 200: SentList } },
      },
      async (request) => listSentPix(ctx.db, callerOf(ctx, request), request.query),
    );
  };
