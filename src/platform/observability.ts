/** `GET /health`, Prometheus `GET /metrics` (request counts and latency by route) and the request log. */
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type {} from '@fastify/swagger';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from './context.ts';
import { refusalOf } from './errors.ts';

/** Installed on the root instance (not encapsulated) so the hook sees every route. */
export function installObservability(app: FastifyInstance, ctx: AppContext): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'pixd_' });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'pixd_http_requests_total',
    help: 'HTTP requests by route',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'pixd_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: label cardinality must stay bounded.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  // `/health` and `/health/ready` answer 503 while the database is out of reach, so a load balancer
  // drains the node; `/health/live` says only that the process serves (restart it if that fails).
  const health = async (_request: FastifyRequest, reply: FastifyReply) => {
    // Redis only helps (shared rate limits): without it the node serves, limiting on its own.
    const checks = {
      database: await databaseCheck(ctx),
      ...(ctx.config.redisUrl && { redis: ctx.rateLimiter.degraded ? ('degraded' as const) : ('ok' as const) }),
    };
    const ready = checks.database === 'ok';
    const status = !ready ? 'unavailable' : checks.redis === 'degraded' ? 'degraded' : 'ok';
    return reply
      .status(ready ? 200 : 503)
      .send({ status, environment: ctx.config.environment, database: ctx.db.kind, checks });
  };
  app.get('/health', { schema: { hide: true } }, health);
  app.get('/health/ready', { schema: { hide: true } }, health);
  app.get('/health/live', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}

async function databaseCheck(ctx: AppContext): Promise<'ok' | 'down'> {
  try {
    await ctx.db.query('select 1');
    return 'ok';
  } catch {
    return 'down';
  }
}

/**
 * One log line per request, written when it ends, instead of Fastify's two (incoming, completed). The
 * query string stays out: list filters carry payers' CPFs and CNPJs. Fastify's "route not found" line,
 * which carried the raw URL, is replaced by this one too (route `unmatched`).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      path: request.url.split('?', 1)[0],
      route: request.routeOptions.url ?? 'unmatched',
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
    };
    const refusal = refusalOf(reply);
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (refusal) reply.log.info({ ...line, ...refusal }, 'request refused');
    else reply.log.info(line, 'request');
  }
}
