/**
 * Sandbox webhook tools: emit test recurrence, automatic-charge and account-opening events (those features
 * come in later issues; these let their webhooks be exercised end to end), and list recent deliveries with
 * every attempt so an integrator can see why a webhook failed.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { randomAlphanumeric } from '../platform/ids.ts';
import { RECEIVER_ISPB } from '../platform/institution.ts';
import { recentDeliveries } from '../platform/webhooks/inspection.ts';
import { Txid } from '../pix/shared/schemas.ts';
import { WEBHOOK_TOPICS, accountEventBody, enqueueAccountEvent } from '../pix/webhook/events.ts';
import { OPENING_TOPIC, enqueueOpeningEvent } from '../opening/events.ts';
import { OPENING_EVENTS } from '../opening/schemas.ts';

const tags = ['Sandbox'];
const strict = { additionalProperties: false } as const;
/** Bacen RecId: R + R|N + ISPB + yyyyMMdd + 11 alphanumerics. */
const REC_ID_PATTERN = '^R[RN]\\d{8}\\d{8}[a-zA-Z0-9]{11}$';
const REC_STATUS = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
const COBR_STATUS = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

const newRecId = (now: Date) =>
  `RR${RECEIVER_ISPB}${now.toISOString().slice(0, 10).replaceAll('-', '')}${randomAlphanumeric(11)}`;
const WEBHOOK_TOPIC_LIST = [...Object.values(WEBHOOK_TOPICS), OPENING_TOPIC].map((topic) => topic.name);

const Emitted = Type.Object({ topico: Type.String(), entrega: Type.Integer(), corpo: Type.Unknown() });

export const sandboxWebhookRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/sandbox/webhooks/rec',
      {
        schema: {
          tags,
          summary: "Emit a test recurrence event to the account's /v2/webhookrec webhook (sandbox)",
          body: Type.Object(
            {
              idRec: Type.Optional(Type.String({ pattern: REC_ID_PATTERN })),
              status: Type.Optional(literals(REC_STATUS)),
            },
            strict,
          ),
          response: { 202: Emitted },
        },
      },
      async (request, reply) => {
        const now = ctx.clock.forAccount(request.principal.accountId).now();
        const idRec = request.body.idRec ?? newRecId(now);
        const status: string = request.body.status ?? 'APROVADA';
        const item = {
          idRec,
          status,
          atualizacao: [
            { status: 'CRIADA', data: now.toISOString() },
            ...(status === 'CRIADA' ? [] : [{ status, data: now.toISOString() }]),
          ],
        };
        const id = await ctx.db.tx((sql) =>
          enqueueAccountEvent(sql, 'rec', request.principal.accountId, item, idRec, now),
        );
        return reply
          .status(202)
          .send({ topico: WEBHOOK_TOPICS.rec.name, entrega: id, corpo: accountEventBody('rec', item) });
      },
    );

    app.post(
      '/sandbox/webhooks/cobr',
      {
        schema: {
          tags,
          summary: "Emit a test automatic-charge event to the account's /v2/webhookcobr webhook (sandbox)",
          body: Type.Object(
            {
              idRec: Type.Optional(Type.String({ pattern: REC_ID_PATTERN })),
              txid: Type.Optional(Txid),
              status: Type.Optional(literals(COBR_STATUS)),
            },
            strict,
          ),
          response: { 202: Emitted },
        },
      },
      async (request, reply) => {
        const now = ctx.clock.forAccount(request.principal.accountId).now();
        const idRec = request.body.idRec ?? newRecId(now);
        const txid = request.body.txid ?? randomAlphanumeric(LIMITS.txidAssignedChars);
        const status: string = request.body.status ?? 'ATIVA';
        const item = { idRec, txid, status, atualizacao: [{ status, data: now.toISOString() }] };
        const id = await ctx.db.tx((sql) =>
          enqueueAccountEvent(sql, 'cobr', request.principal.accountId, item, txid, now),
        );
        return reply
          .status(202)
          .send({ topico: WEBHOOK_TOPICS.cobr.name, entrega: id, corpo: accountEventBody('cobr', item) });
      },
    );

    app.post(
      '/sandbox/webhooks/abertura-conta',
      {
        schema: {
          tags,
          summary: 'Emit an account-opening event to every /v1/webhook of the account (sandbox)',
          body: Type.Object(
            {
              identificador: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
              evento: literals(OPENING_EVENTS),
            },
            strict,
          ),
          response: {
            202: Type.Object({ identificador: Type.String(), evento: Type.String(), webhooks: Type.Integer() }),
          },
        },
      },
      async (request, reply) => {
        const now = ctx.clock.forAccount(request.principal.accountId).now();
        const identificador = request.body.identificador ?? randomAlphanumeric(LIMITS.txidAssignedChars);
        const evento = request.body.evento as (typeof OPENING_EVENTS)[number];
        const webhooks = await ctx.db.tx((sql) =>
          enqueueOpeningEvent(sql, request.principal.accountId, identificador, evento, now),
        );
        return reply.status(202).send({ identificador, evento, webhooks });
      },
    );

    app.get(
      '/sandbox/webhooks/entregas',
      {
        schema: {
          tags,
          summary: "Recent webhook deliveries of the caller's account, each with every attempt (sandbox)",
          querystring: Type.Object(
            {
              limite: Type.Optional(
                Type.Integer({ minimum: 1, maximum: LIMITS.webhookInspectionMaxItems, default: 50 }),
              ),
              topico: Type.Optional(literals(WEBHOOK_TOPIC_LIST)),
            },
            strict,
          ),
        },
      },
      async (request) => {
        const topics = request.query.topico ? [request.query.topico] : WEBHOOK_TOPIC_LIST;
        return {
          entregas: await recentDeliveries(ctx.db, request.principal.accountId, topics, request.query.limite ?? 50),
        };
      },
    );
  };
