/**
 * Sandbox webhook tools: send the last recurrence or recurring-charge event again (its current state: real
 * events come from the state machines of src/pix/rec and src/pix/cobr), emit account-opening events, and list
 * recent deliveries with every attempt so an integrator can see why a webhook failed.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { randomAlphanumeric } from '../platform/ids.ts';
import { recentDeliveries } from '../platform/webhooks/inspection.ts';
import { Txid } from '../pix/shared/schemas.ts';
import { WEBHOOK_TOPICS, accountEventBody } from '../pix/webhook/events.ts';
import { REC_ID_PATTERN } from '../pix/rec/schemas.ts';
import { replayRecEvent } from '../pix/rec/service.ts';
import { replayCobrEvent } from '../pix/cobr/service.ts';
import { OPENING_TOPIC, enqueueOpeningEvent } from '../opening/events.ts';
import { OF_CALLBACK_TOPIC } from '../openfinance/events.ts';
import { OPENING_EVENTS } from '../opening/schemas.ts';

const tags = ['Sandbox'];
const strict = { additionalProperties: false } as const;
const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

const WEBHOOK_TOPIC_LIST = [...Object.values(WEBHOOK_TOPICS), OPENING_TOPIC, OF_CALLBACK_TOPIC].map(
  (topic) => topic.name,
);

const Emitted = Type.Object({ topico: Type.String(), entrega: Type.Integer(), corpo: Type.Unknown() });

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
/** The first bytes of a body kept with an attempt, and its whole size. */
const KeptBody = nullable(Type.Object({ corpo: Type.String(), bytes: Type.Integer({ minimum: 0 }) }));
/** One delivery as recentDeliveries (its DeliveryState values) (src/platform/webhooks/inspection.ts) reads it. */
const Delivery = Type.Object({
  id: Type.Integer(),
  topico: Type.String({ description: 'The webhook topic (webhook.pix, webhook.rec, …).' }),
  assunto: nullable(Type.String({ description: 'The Pix (endToEndId), recurrence, charge or account it is about.' })),
  situacao: Type.Union([
    Type.Literal('pendente'),
    Type.Literal('entregue'),
    Type.Literal('falhou'),
    Type.Literal('nao_enviado'),
  ]),
  criacao: DateTime,
  proximaTentativa: nullable(DateTime),
  ultimoErro: nullable(Type.String()),
  tentativas: Type.Array(
    Type.Object({
      numero: Type.Integer({ minimum: 1 }),
      horario: DateTime,
      url: Type.String(),
      statusHttp: nullable(Type.Integer()),
      latenciaMs: Type.Integer({ minimum: 0 }),
      erro: nullable(Type.String()),
      enviado: KeptBody,
      resposta: KeptBody,
    }),
  ),
});

export const sandboxWebhookRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/sandbox/webhooks/rec',
      {
        schema: {
          tags,
          summary:
            "Send the last event of a recurrence (its current state) again to the account's /v2/webhookrec webhook (sandbox)",
          body: Type.Object({ idRec: Type.Optional(Type.String({ pattern: REC_ID_PATTERN })) }, strict),
          response: { 202: Emitted },
        },
      },
      async (request, reply) => {
        const accountId = request.principal.accountId;
        const now = ctx.clock.forAccount(accountId).now();
        const { entrega, item } = await ctx.db.tx((sql) => replayRecEvent(sql, accountId, request.body.idRec, now));
        return reply
          .status(202)
          .send({ topico: WEBHOOK_TOPICS.rec.name, entrega, corpo: accountEventBody('rec', item) });
      },
    );

    app.post(
      '/sandbox/webhooks/cobr',
      {
        schema: {
          tags,
          summary:
            "Send the last event of a recurring charge (its current state) again to the account's /v2/webhookcobr webhook (sandbox)",
          body: Type.Object({ txid: Type.Optional(Txid) }, strict),
          response: { 202: Emitted },
        },
      },
      async (request, reply) => {
        const accountId = request.principal.accountId;
        const now = ctx.clock.forAccount(accountId).now();
        const { entrega, item } = await ctx.db.tx((sql) => replayCobrEvent(sql, accountId, request.body.txid, now));
        return reply
          .status(202)
          .send({ topico: WEBHOOK_TOPICS.cobr.name, entrega, corpo: accountEventBody('cobr', item) });
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
          response: { 200: Type.Object({ entregas: Type.Array(Delivery) }) },
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
