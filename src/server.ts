/**
 * Builds the Fastify application: TLS, the schema compilers, the guards every request passes, the API
 * reference, observability, then the route families (families.ts: each an encapsulated plugin with its own
 * guard and error format).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppContext } from './platform/context.ts';
import { ApiError, NodeDraining, errorHandler, renderFrameworkError } from './platform/errors.ts';
import { LIMITS } from './platform/limits.ts';
import { lazySerializers, validatorCompiler } from './platform/validators.ts';
import { installObservability, RequestLog } from './platform/observability.ts';
import { boundRequestNumbers, rejectUnstorableText } from './platform/request-guards.ts';
import { loggerOptions } from './platform/logging.ts';
import { onlyPagesThere } from './platform/pages.ts';
import { documentRoute, SECURITY_SCHEMES } from './platform/openapi.ts';
import { registerFamilies } from './families.ts';
import { EXAMPLE_KEY } from './platform/example-values.ts';
import { demoKey } from './accounts/demo.ts';

const API_DESCRIPTION = [
  'Pix receiving and billing interface, generated from the route schemas.',
  '',
  'Pix routes need the client certificate of your application (mutual TLS) and a bearer token from',
  '`POST /oauth/token` bound to it; card billing routes a token from `POST /v1/authorize`. To try Pix calls',
  'from this page, install the certificate (`certificates/<client id>.p12` in the data directory) in your',
  'browser or system so the browser can present it, get a token with curl (see the README), and paste it',
  'under Authorize.',
  '',
  '**Presenting the client certificate.** The `.p12` has an empty passphrase: at the import prompt leave the',
  'password blank. Chrome and Edge: Settings → Privacy and security → Security → Manage certificates → Import;',
  'Firefox: Settings → Privacy & Security → Certificates → View Certificates → Your Certificates → Import;',
  "macOS: open the file (Keychain Access); Windows: open the file (Certificate Import Wizard). Trust pixd's CA",
  '(`ca.pem` in the data directory) the same way, then reload this page and choose the certificate named after',
  'your client id when the browser asks. Or skip the browser: `curl --cert certificate.pem --key certificate.key',
  '--cacert ca.pem` as in the README.',
  '',
  "In the sandbox the examples name the demo account's own key (credentials.json `chaves[0]`), so *Try it out*",
  'works as it is with the demo application.',
].join('\n');
import { withDeadline } from './platform/db/deadline.ts';

export interface BuildOptions {
  logger?: boolean | object;
}

/**
 * A request that reaches the node once it is closing (on a keep-alive connection still busy, or pipelined)
 * is refused with 503 in its family's format, before any guard or handler runs, and its connection is
 * closed: the load balancer sends the retry to another node. Requests already running finish.
 */
function refuseWhileDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!draining) return;
    reply.header('connection', 'close');
    throw new NodeDraining();
  });
}

/**
 * Every request runs under a deadline counted from its arrival (src/platform/db/deadline.ts): a transaction
 * not committed by then rolls back and the request answers 503 with Retry-After in its family's format.
 * Set before the handler (after parsing), so the handler and everything it awaits see it. The operator API
 * (`pixd ledger verify`, snapshots) has none: its work grows with the data and its caller waits for it.
 */
function requestDeadline(app: FastifyInstance, deadlineMs: number): void {
  const arrivedAt = new WeakMap<object, number>();
  app.addHook('onRequest', (request, _reply, done) => {
    arrivedAt.set(request, Date.now());
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.routeOptions.url?.startsWith(OPERATOR_PREFIX)) return done();
    withDeadline((arrivedAt.get(request) ?? Date.now()) + deadlineMs, done);
  });
}

const OPERATOR_PREFIX = '/operator/';

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(ctx.config.logLevel, ctx.config.logFormat),
    logController: new RequestLog(),
    https: {
      key: ctx.pki.server.keyPem,
      cert: ctx.pki.server.certPem,
      ca: ctx.pki.ca.certPem,
      // Certificates are checked per route family (Pix requires one, billing and payers' fetches do not).
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    bodyLimit: LIMITS.bodyMaxBytes,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    // Fastify's own 503 while closing has its default body: the hook below answers in the family's format.
    return503OnClosing: false,
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    frameworkErrors: renderFrameworkError,
  });
  app.setValidatorCompiler(validatorCompiler());
  refuseWhileDraining(app);
  requestDeadline(app, ctx.config.requestDeadlineMs);
  app.addHook('onRequest', onlyPagesThere(ctx.pages));
  // Before any route is declared: they apply to every family registered below.
  app.addHook('onRoute', boundRequestNumbers);
  app.addHook('preValidation', rejectUnstorableText);
  app.decorateRequest('principal', null as never);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  await app.register(swagger, {
    openapi: {
      // 3.1: mutual TLS is a security scheme of its own there.
      openapi: '3.1.0',
      info: {
        title: 'pixd',
        version: '0.1.0',
        description: API_DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: ctx.config.publicUrl }],
      // The bundled OpenAPI types know 3.0 only, which has no mutualTLS scheme.
      components: { securitySchemes: SECURITY_SCHEMES as never },
    },
    transform: documentRoute,
  });
  // In the sandbox the examples' stand-in key becomes the demo account's own, so try-it's prefilled requests are
  // accepted as they are (a key that is not the caller's is a 400). Kept once the demo account exists.
  let demoReference: Record<string, unknown> | undefined;
  const reference = async (): Promise<Record<string, unknown>> => {
    const document = app.swagger() as unknown as Record<string, unknown>;
    if (demoReference || ctx.config.environment !== 'sandbox') return demoReference ?? document;
    const key = await demoKey(ctx.db);
    if (key) demoReference = JSON.parse(JSON.stringify(document).replaceAll(EXAMPLE_KEY, key));
    return demoReference ?? document;
  };
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { persistAuthorization: true },
    uiHooks: { onRequest: async () => void (await reference()) },
    transformSpecification: (document) => demoReference ?? (document as Record<string, unknown>),
    transformSpecificationClone: false,
  });
  app.get('/openapi.json', { schema: { hide: true } }, reference);
  installObservability(app, ctx);

  app.setErrorHandler(errorHandler('problem'));
  app.setNotFoundHandler((request) => {
    // The path is named only up to a bound: an unknown path is the caller's, and may be long.
    const path = request.url.split('?')[0];
    const shown =
      path.length > LIMITS.errorPathShownMaxChars ? `${path.slice(0, LIMITS.errorPathShownMaxChars)}…` : path;
    throw new ApiError(404, 'NaoEncontrado', `Rota ${request.method} ${shown} não encontrada.`);
  });

  await registerFamilies(app, ctx);
  return app;
}
