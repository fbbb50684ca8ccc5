/**
 * `POST /v2/gn/relatorios/extrato-conciliacao` and `GET /v2/gn/relatorios/:id`. Errors are problem
 * objects (the SDK documents `type/title/status/detail/violacoes` for these two, unlike the other /v2/gn
 * helpers), and an internal failure is named `ErroInterno` as the interface lists for reports.
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { ApiError, errorHandler, toApiError } from '../../platform/errors.ts';
import { callerOf } from '../shared/caller.ts';
import { ReportFile, ReportIdParams, ReportRequest, ReportView } from './schemas.ts';
import { REPORT_INVALID, readReport, requestReport } from './service.ts';

const tags = ['Relatórios'];

export const reportRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const problem = errorHandler('problem');
    app.setErrorHandler(function handle(error: FastifyError, request, reply) {
      const apiError = toApiError(error, 'problem', request.routeOptions.config ?? {});
      if (apiError.errorName !== 'ErroInternoDoServidor') return problem.call(this, error, request, reply);
      request.log.error({ err: error }, 'request failed');
      return problem.call(this, new ApiError(500, 'ErroInterno', apiError.detail), request, reply);
    });

    app.post(
      '/v2/gn/relatorios/extrato-conciliacao',
      {
        config: { scope: 'gn.reports.write', rateLimited: true, invalidRequest: REPORT_INVALID },
        schema: {
          tags,
          summary: 'Request a reconciliation report of one past day; it is generated asynchronously',
          body: ReportRequest,
          response: { 201: ReportView },
        },
      },
      async (request, reply) => {
        const { view } = await ctx.db.tx((sql) => requestReport(sql, callerOf(ctx, request), request.body));
        return reply.status(201).send(view);
      },
    );

    app.get(
      '/v2/gn/relatorios/:id',
      {
        config: { scope: 'gn.reports.read' },
        schema: {
          tags,
          summary: 'The report file once generated (200), or its status until then (202)',
          params: ReportIdParams,
          response: { 200: ReportFile, 202: ReportView },
        },
      },
      async (request, reply) => {
        const result = await readReport(ctx.db, callerOf(ctx, request), request.params.id);
        if (!result.ready) return reply.status(202).send(result.view);
        return (
          reply
            .status(200)
            .type('text/csv; charset=utf-8')
            .header('content-length', String(result.file.bytes))
            .header('content-disposition', `attachment; filename="${result.file.name}"`)
            // A stream is sent as it comes (no serialisation); the 200 schema only documents it as text.
            .send(result.file.body as never)
        );
      },
    );
  };
