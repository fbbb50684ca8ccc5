/**
 * The participant-side directory (docs/participants.md): `/dict/entries`, `/dict/refunds` and
 * `/v1/pix/confirm`, in the wrapper error format ({responseTime, correlationId, error}). Only an indirect
 * participant's application reaches them: the `*.ind.*` scopes are granted to no other (accounts/service.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { ApiError, correlationId, responseTimeMs } from '../../platform/errors.ts';
import { confirmPix } from './confirm.ts';
import { createEntry, ENTRY_INVALID } from './entries.ts';
import { createRefundRequest, readRefundRequest, REFUND_INVALID } from './refunds.ts';
import { ConfirmAnswer, ConfirmRequest, EntryAnswer, EntryCreate, RefundAnswer, RefundCreate } from './schemas.ts';
import { participantIspb } from './store.ts';

const tags = ['Diretório (participante)'];

const envelope = (request: FastifyRequest, reply: FastifyReply) => ({
  responseTime: responseTimeMs(reply),
  correlationId: correlationId(request),
});

/** The caller's participant identity. The scopes already keep other applications out; this is the backstop. */
async function participantOf(ctx: AppContext, request: FastifyRequest): Promise<{ accountId: number; ispb: string }> {
  const accountId = request.principal.accountId;
  const ispb = await participantIspb(ctx.db, accountId);
  if (!ispb) throw new ApiError(403, 'AcessoNegado', 'A conta desta aplicação não é um participante indireto.');
  return { accountId, ispb };
}

/**
 * A directory operation has `ms` to finish (spec: timeout → 504). One that finishes late still counts as timed
 * out: the caller cannot tell, and retries with the same requestId, which answers the entry if it was committed.
 */
async function withinDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(ms)), ms);
  });
  // The work goes on if the deadline wins; its rejection then has no one to answer.
  const running = work();
  running.catch(() => undefined);
  try {
    const result = await Promise.race([running, late]);
    if (Date.now() - started >= ms) throw timedOut(ms);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

const timedOut = (ms: number) =>
  new ApiError(504, 'Timeout', `A operação no diretório não terminou em ${ms} ms; repita com o mesmo requestId.`);

export const dictRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const deadlineMs = ctx.config.dictTimeoutMs;

    app.post(
      '/dict/entries',
      {
        config: { scope: 'keys.ind.write', invalidRequest: ENTRY_INVALID },
        schema: {
          tags,
          summary: "Register a key of the participant's customer: it receives Pix, held until confirmed",
          body: EntryCreate,
          response: { 201: EntryAnswer },
        },
      },
      async (request, reply) => {
        const participant = await participantOf(ctx, request);
        const now = ctx.clock.forAccount(participant.accountId).now();
        const entry = await withinDeadline(deadlineMs, () => createEntry(ctx.db, participant, request.body, now));
        return reply.status(201).send({ ...envelope(request, reply), entry });
      },
    );

    app.post(
      '/dict/refunds',
      {
        config: { scope: 'devolutionRequest.ind.write', invalidRequest: REFUND_INVALID },
        schema: {
          tags,
          summary: 'Request a special refund of a Pix the customer paid or received',
          body: RefundCreate,
          response: { 201: RefundAnswer },
        },
      },
      async (request, reply) => {
        const participant = await participantOf(ctx, request);
        const now = ctx.clock.forAccount(participant.accountId).now();
        const refund = await withinDeadline(deadlineMs, () =>
          createRefundRequest(ctx.db, participant, request.body, now),
        );
        return reply.status(201).send({ ...envelope(request, reply), refund });
      },
    );

    app.get(
      '/dict/refunds/:id',
      {
        // Reading a request is part of making it: the same scope (the interface names no read scope).
        config: { scope: 'devolutionRequest.ind.write', invalidRequest: REFUND_INVALID },
        schema: {
          tags,
          summary: 'Read a special refund request',
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          response: { 200: RefundAnswer },
        },
      },
      async (request, reply) => {
        const participant = await participantOf(ctx, request);
        const refund = await readRefundRequest(ctx.db, participant.accountId, request.params.id);
        return { ...envelope(request, reply), refund };
      },
    );

    app.post(
      '/v1/pix/confirm',
      {
        // The interface lists pix.ind.read for a write; the consistent scope is used (docs/decisions.md).
        config: { scope: 'pix.ind.write' },
        schema: {
          tags,
          summary: 'Accept (ACSP) or reject (RJCT) incoming Pix held for the participant',
          body: ConfirmRequest,
          response: { 200: ConfirmAnswer },
        },
      },
      async (request, reply) => {
        const participant = await participantOf(ctx, request);
        const answer = await confirmPix(ctx.db, ctx.clock, ctx.payerInstitution, participant.accountId, request.body);
        return { ...envelope(request, reply), ...answer };
      },
    );
  };
