/**
 * `/v1/extrato-cnab/…`: the SDK's Extratos family (its own origin, whose base path ends in /v1 as Open
 * Finance's does; the token comes from POST /v1/oauth/token). Errors are `{nome, mensagem}`, as the SDK reads.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../../pix/shared/caller.ts';
import {
  FileNameParams,
  ScheduleList,
  ScheduleParams,
  ScheduleRequest,
  ScheduleUpdate,
  ScheduleView,
  SftpKeyView,
  StatementFile,
  StatementFileList,
} from './schemas.ts';
import {
  createSchedule,
  createSftpKey,
  reviseSchedule,
  statementFile,
  statementFiles,
  statementSchedules,
} from './service.ts';
import { isCompressed } from './files.ts';

const tags = ['Extratos CNAB'];
const read = { scope: 'gn.cnab-statement.statement.read' } as const;
const write = { scope: 'gn.cnab-statement.statement.write', invalidRequest: 'agendamento_invalido' } as const;

export const statementRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v1/extrato-cnab/arquivos',
      {
        config: read,
        schema: { tags, summary: 'The CNAB statement files of the account', response: { 200: StatementFileList } },
      },
      (request) => statementFiles(ctx.db, callerOf(ctx, request)),
    );

    app.get(
      '/v1/extrato-cnab/download/:nome_arquivo',
      {
        config: read,
        schema: {
          tags,
          summary: 'One CNAB 240 statement file',
          params: FileNameParams,
          response: { 200: StatementFile },
        },
      },
      async (request, reply) => {
        const name = request.params.nome_arquivo;
        const content = await statementFile(ctx.db, callerOf(ctx, request), name);
        return reply
          .type(isCompressed(name) ? 'application/zip' : 'text/plain; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"`)
          .send(content);
      },
    );

    app.get(
      '/v1/extrato-cnab/agendamentos',
      {
        config: read,
        schema: { tags, summary: 'The statement schedules of the account', response: { 200: ScheduleList } },
      },
      (request) => statementSchedules(ctx.db, callerOf(ctx, request)),
    );

    app.post(
      '/v1/extrato-cnab/agendar',
      {
        config: write,
        schema: {
          tags,
          summary: 'Schedule statement files (daily, weekly or monthly) on the account clock',
          body: ScheduleRequest,
          response: { 201: ScheduleView },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await ctx.db.tx((sql) => createSchedule(sql, callerOf(ctx, request), request.body))),
    );

    app.patch(
      '/v1/extrato-cnab/agendar/:identificador',
      {
        config: write,
        schema: {
          tags,
          summary: 'Change or deactivate a statement schedule',
          params: ScheduleParams,
          body: ScheduleUpdate,
          response: { 200: ScheduleView },
        },
      },
      (request) =>
        ctx.db.tx((sql) => reviseSchedule(sql, callerOf(ctx, request), request.params.identificador, request.body)),
    );

    app.post(
      '/v1/extrato-cnab/gerar-chaves',
      {
        config: { scope: 'gn.cnab-statement.keys.write' },
        schema: {
          tags,
          summary: "A key pair for the account's SFTP login (the public half replaces the previous one)",
          response: { 201: SftpKeyView },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await ctx.db.tx((sql) => createSftpKey(sql, callerOf(ctx, request), ctx.sftp.address))),
    );
  };
