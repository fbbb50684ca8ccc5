/**
 * Payment split (Efí /v2/gn/split). Errors are Bacen problem objects, as the official SDK documents for
 * these endpoints (`type`, `title`, `status`, `detail`, `violacoes`). See docs/split.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { RevisaoQuery, TxidParams } from '../shared/schemas.ts';
import {
  ConfigParams,
  LinkParams,
  SplitCobVView,
  SplitCobView,
  SplitConfigRequest,
  SplitConfigView,
} from './schemas.ts';
import { CONFIG_INVALID, SPLIT_QUERY_INVALID, readConfig, writeConfig } from './service.ts';
import { LINK_INVALID, linkConfig, readSplitCob, readSplitCobV, unlinkConfig } from './links.ts';

const tags = ['Split'];
// The interface lists cgn.split.write for PUT config; gn.split.write is meant (docs/decisions.md).
const writeConfigOptions = {
  scope: 'gn.split.write',
  rateLimited: true,
  invalidRequest: CONFIG_INVALID,
  propertyRoot: 'config',
} as const;
const link = { scope: 'gn.split.write', rateLimited: true, invalidRequest: LINK_INVALID } as const;
const unlink = { scope: 'gn.split.write', invalidRequest: LINK_INVALID } as const;
const read = { scope: 'gn.split.read', invalidRequest: SPLIT_QUERY_INVALID } as const;

export const splitRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/gn/split/config',
      {
        config: writeConfigOptions,
        schema: {
          tags,
          summary: 'Create a split configuration (id assigned)',
          body: SplitConfigRequest,
          response: { 201: SplitConfigView },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) => writeConfig(sql, callerOf(ctx, request), undefined, request.body));
        return reply.status(201).send(view);
      },
    );

    app.put(
      '/v2/gn/split/config/:id',
      {
        config: writeConfigOptions,
        schema: {
          tags,
          summary: "Create a split configuration with the caller's id, or write its next revision",
          params: ConfigParams,
          body: SplitConfigRequest,
          response: { 201: SplitConfigView },
        },
      },
      async (request, reply) => {
        const view = await ctx.db.tx((sql) =>
          writeConfig(sql, callerOf(ctx, request), request.params.id, request.body),
        );
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/gn/split/config/:id',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a split configuration (optionally one revision)',
          params: ConfigParams,
          querystring: RevisaoQuery,
          response: { 200: SplitConfigView },
        },
      },
      async (request) => readConfig(ctx.db, callerOf(ctx, request), request.params.id, request.query.revisao),
    );

    // Immediate charges. The link answers 204 as the interface says.
    app.put(
      '/v2/gn/split/cob/:txid/vinculo/:splitConfigId',
      {
        config: link,
        schema: {
          tags,
          summary: 'Link a split configuration to an active immediate charge',
          params: LinkParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await ctx.db.tx((sql) =>
          linkConfig(sql, callerOf(ctx, request), 'cob', request.params.txid, request.params.splitConfigId),
        );
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/v2/gn/split/cob/:txid',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read an immediate charge with its split configuration',
          params: TxidParams,
          response: { 200: SplitCobView },
        },
      },
      async (request) => readSplitCob(ctx.db, callerOf(ctx, request), request.params.txid),
    );

    app.delete(
      '/v2/gn/split/cob/:txid/vinculo',
      {
        config: unlink,
        schema: {
          tags,
          summary: 'Unlink the split configuration of an unpaid immediate charge; answers the charge as now read',
          params: TxidParams,
          response: { 200: SplitCobView },
        },
      },
      async (request) => {
        const caller = callerOf(ctx, request);
        return ctx.db.tx(async (sql) => {
          await unlinkConfig(sql, caller, 'cob', request.params.txid);
          return readSplitCob(sql, caller, request.params.txid);
        });
      },
    );

    // Due charges. The interface gives the link 200 (not 204): it answers the due charge as now read.
    app.put(
      '/v2/gn/split/cobv/:txid/vinculo/:splitConfigId',
      {
        config: link,
        schema: {
          tags,
          summary: 'Link a split configuration to an active due charge; answers the due charge as now read',
          params: LinkParams,
          response: { 200: SplitCobVView },
        },
      },
      async (request) => {
        const caller = callerOf(ctx, request);
        return ctx.db.tx(async (sql) => {
          await linkConfig(sql, caller, 'cobv', request.params.txid, request.params.splitConfigId);
          return readSplitCobV(sql, caller, request.params.txid);
        });
      },
    );

    app.get(
      '/v2/gn/split/cobv/:txid',
      {
        config: read,
        schema: {
          tags,
          summary: 'Read a due charge with its receiver and split configuration',
          params: TxidParams,
          response: { 200: SplitCobVView },
        },
      },
      async (request) => readSplitCobV(ctx.db, callerOf(ctx, request), request.params.txid),
    );

    app.delete(
      '/v2/gn/split/cobv/:txid/vinculo',
      {
        config: unlink,
        schema: {
          tags,
          summary: 'Unlink the split configuration of an unpaid due charge; answers the due charge as now read',
          params: TxidParams,
          response: { 200: SplitCobVView },
        },
      },
      async (request) => {
        const caller = callerOf(ctx, request);
        return ctx.db.tx(async (sql) => {
          await unlinkConfig(sql, caller, 'cobv', request.params.txid);
          return readSplitCobV(sql, caller, request.params.txid);
        });
      },
    );
  };
