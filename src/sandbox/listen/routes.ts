/**
 * `pixd listen` (docs/webhooks.md, "Forwarding to localhost"). Two route families share the sessions:
 * the CLI's (its bearer token, sandbox scope) opens a stream and answers deliveries; the webhook side is
 * where the registered address points, called by this service's own deliveries with its webhook client
 * certificate, which is all it accepts.
 */
import { once } from 'node:events';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { ApiError, notFound } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { clientCertificateSha256 } from '../../platform/auth/guard.ts';
import { certificateSha256 } from '../../platform/pki.ts';
import { webhookSettings } from '../../platform/webhooks/settings.ts';
import { TEST_NOTIFICATION } from '../../platform/webhooks/handshake.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import { ListenSessions, type ForwardedDelivery } from './sessions.ts';
import { registerSession, restoreOrphanedSessions, restoreSession } from './service.ts';
import { renewSessions } from './store.ts';
import { holderId } from '../../platform/processes.ts';

const tags = ['Sandbox'];
const strict = { additionalProperties: false } as const;
/** An answer leaves room for the delivery's own timeout: the attempt records the local outcome, not a timeout. */
const ANSWER_MARGIN_MS = 500;
/** Headers of a delivery the local receiver gets as pixd sent them; the rest belong to the hop. */
const FORWARDED_HEADER = /^(content-type|user-agent|x-.*)$/;

const SessionParams = Type.Object({ sessao: Type.String({ format: 'uuid' }) });
/** Each line of the stream: the session first, then one delivery per line, and why it ended last. */
const StreamLine = Type.Union([
  Type.Object({
    sessao: SessionParams.properties.sessao,
    webhookUrl: Type.String({ format: 'uri' }),
    chaves: Type.Array(Type.String()),
    recorrencias: Type.Boolean({ description: 'Whether the recurrence and recurring-charge webhooks point here too.' }),
  }),
  Type.Object({
    entrega: Type.Integer({ minimum: 1 }),
    sufixo: Type.String({ description: 'Appended to --forward-to: /pix, /rec or /cobr.' }),
    headers: Type.Record(Type.String(), Type.String()),
    corpo: Type.String(),
  }),
  Type.Object({ fim: Type.String({ description: 'Why the server ended the stream.' }) }),
]);

export function listenRoutes(ctx: AppContext): { api: FastifyPluginAsync; webhook: FastifyPluginAsync } {
  const sessions = new ListenSessions();
  const deps = { db: ctx.db, transport: ctx.webhooks.transport };
  const serviceCertificate = certificateSha256(ctx.pki.webhookClient.certPem);

  const holder = holderId();
  const leaseEnd = () => new Date(Date.now() + LIMITS.listenSessionLeaseMs);
  const api: FastifyPluginAsync = async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    // Every heartbeat: this node's sessions stay leased, and those whose node is gone get their registrations back.
    const tend = async () => {
      if (sessions.count > 0) await renewSessions(ctx.db, holder, leaseEnd());
      const restored = await restoreOrphanedSessions(ctx.db, new Date());
      if (restored) app.log.info({ sessions: restored }, 'listen: registrations of ended sessions put back');
    };
    const tendLogged = () => tend().catch((error) => app.log.error({ err: error }, 'listen: sessions not tended'));
    // A node killed with sessions open left them behind: at its restart they end before anything is delivered.
    await tendLogged();
    const tending = setInterval(tendLogged, LIMITS.listenHeartbeatMs).unref();
    // The streams end before the server stops, and their registrations are put back while the database is open.
    app.addHook('preClose', async () => {
      clearInterval(tending);
      await sessions.endAll();
    });
    app.addHook('onClose', async () => sessions.restored());

    app.post(
      '/sandbox/listen',
      {
        schema: {
          tags,
          summary:
            "Forward the account's webhooks to the caller (pixd listen): a stream of deliveries, one JSON object per line (sandbox)",
          body: Type.Object({ chave: Type.Optional(Type.String({ minLength: 1, maxLength: 77 })) }, strict),
          response: { 200: { content: { 'application/x-ndjson': { schema: StreamLine } } } },
        },
      },
      async (request, reply) => {
        const caller = callerOf(ctx, request);
        const early: ForwardedDelivery[] = [];
        let write: ((line: unknown) => void) | undefined;
        const session = sessions.open(caller.accountId, (delivery) => (write ? write(delivery) : early.push(delivery)));
        if (!session)
          throw new ApiError(
            429,
            'LimiteDeSessoes',
            `Esta conta já tem ${LIMITS.listenSessionsPerAccount} sessões de pixd listen abertas.`,
          );
        const url = `${ctx.config.publicUrl}/sandbox/listen/${session.id}/webhook`;
        let registration: Awaited<ReturnType<typeof registerSession>>;
        try {
          const opening = { id: session.id, url, holder, aliveUntil: leaseEnd(), now: new Date() };
          registration = await registerSession(deps, caller, opening, request.body.chave);
        } catch (error) {
          sessions.close(session);
          throw error;
        }
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
        write = (line) => raw.write(`${JSON.stringify(line)}\n`);
        write({
          sessao: session.id,
          webhookUrl: url,
          chaves: registration.chaves,
          recorrencias: registration.recorrencias,
        });
        for (const delivery of early) write(delivery);
        const heartbeat = setInterval(() => raw.write('\n'), LIMITS.listenHeartbeatMs).unref();
        let ended: Promise<void> | undefined;
        const end = () =>
          (ended ??= (async () => {
            clearInterval(heartbeat);
            const restoring = restoreSession(ctx.db, session.id).catch((error) =>
              request.log.error({ err: error }, 'listen: registrations not put back'),
            );
            sessions.close(session, restoring);
            await restoring;
          })());
        // At shutdown the registrations are put back before the server goes on closing (the database with it),
        // not whenever the response's close event comes; the last line tells the command why it ends.
        sessions.onEnd(session, async () => {
          raw.end(`${JSON.stringify({ fim: 'o servidor pixd está sendo encerrado' })}\n`);
          await end();
        });
        await once(raw, 'close');
        await end();
      },
    );

    app.post(
      '/sandbox/listen/:sessao/respostas/:entrega',
      {
        schema: {
          tags,
          summary: 'How the local receiver answered a forwarded delivery (pixd listen reports it; sandbox)',
          params: Type.Object({ sessao: SessionParams.properties.sessao, entrega: Type.Integer({ minimum: 1 }) }),
          body: Type.Object(
            {
              statusCode: Type.Integer({ minimum: 100, maximum: 599 }),
              latencyMs: Type.Number({ minimum: 0, maximum: 3_600_000 }),
              corpo: Type.Optional(Type.String({ maxLength: LIMITS.listenAnswerBodyMaxChars })),
              erro: Type.Optional(Type.String({ maxLength: 500 })),
            },
            strict,
          ),
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        const session = sessions.get(request.params.sessao);
        const answered =
          session?.accountId === request.principal.accountId && session.answer(request.params.entrega, request.body);
        if (!answered) throw notFound('Nenhuma entrega aguardando resposta nesta sessão.', 'EntregaNaoEncontrada');
        return reply.status(204).send(null);
      },
    );
  };

  const webhook: FastifyPluginAsync = async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    // The body goes to the local receiver as it came.
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    const receive = async (
      request: FastifyRequest<{ Params: { sessao: string; '*'?: string } }>,
      reply: FastifyReply,
    ) => {
      if (clientCertificateSha256(request) !== serviceCertificate)
        throw new ApiError(403, 'AcessoNegado', 'Somente o serviço entrega webhooks a esta sessão (mTLS).');
      const session = sessions.get(request.params.sessao);
      if (!session) throw new ApiError(410, 'SessaoEncerrada', 'Esta sessão de pixd listen terminou.');
      const corpo = typeof request.body === 'string' ? request.body : '';
      if (corpo === JSON.stringify(TEST_NOTIFICATION)) return reply.status(200).send({});
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) =>
          FORWARDED_HEADER.test(name) && typeof value === 'string' ? [[name, value]] : [],
        ),
      );
      const wildcard = request.params['*'];
      const answer = await session.forward(
        { sufixo: wildcard ? `/${wildcard}` : '', headers, corpo },
        webhookSettings().deliveryTimeoutMs - ANSWER_MARGIN_MS,
      );
      reply.status(answer.statusCode).header('content-type', 'application/json; charset=utf-8');
      return reply.send(answer.corpo ?? (answer.erro ? JSON.stringify({ erro: answer.erro }) : ''));
    };
    const schema = { hide: true, params: SessionParams };
    app.post('/sandbox/listen/:sessao/webhook', { schema }, receive);
    app.post('/sandbox/listen/:sessao/webhook/*', { schema: { hide: true } }, receive);
  };

  return { api, webhook };
}
