/**
 * Builds the Fastify application from the feature plugins. Each API family is an encapsulated plugin
 * with its own guard (how callers authenticate) and error format (how failures are written).
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppContext } from './platform/context.ts';
import { ApiError, NodeDraining, errorHandler, renderFrameworkError, type ErrorFormat } from './platform/errors.ts';
import { LIMITS } from './platform/limits.ts';
import { lazySerializers, validatorCompiler } from './platform/validators.ts';
import { guard } from './platform/auth/guard.ts';
import type { Audience } from './platform/auth/tokens.ts';
import { oauthRoutes } from './platform/auth/routes.ts';
import { installObservability, RequestLog } from './platform/observability.ts';
import { cobRoutes } from './pix/cob/routes.ts';
import { cobvRoutes } from './pix/cobv/routes.ts';
import { lotecobvRoutes } from './pix/lotecobv/routes.ts';
import { cobV1Routes } from './pix/cob-v1/routes.ts';
import { providerRefundRoutes, receivedPixRoutes } from './pix/received/routes.ts';
import { splitRoutes } from './pix/split/routes.ts';
import { splitRefundGuard } from './pix/split/distribute.ts';
import { balanceRoutes } from './pix/balance/routes.ts';
import { locRoutes } from './pix/loc/routes.ts';
import { recRoutes } from './pix/rec/routes.ts';
import { cobrRoutes } from './pix/cobr/routes.ts';
import { solicRecRoutes } from './pix/solicrec/routes.ts';
import { locRecRoutes } from './pix/locrec/routes.ts';
import { payloadRoutes } from './pix/payload/routes.ts';
import { qrcodeRoutes } from './pix/qrcodes/routes.ts';
import { evpRoutes } from './pix/evp/routes.ts';
import { keyBucketRoutes } from './pix/lookups/routes.ts';
import { settingsRoutes } from './pix/settings/routes.ts';
import { pixWebhookRoutes } from './pix/webhook/routes.ts';
import { openingWebhookRoutes } from './opening/routes.ts';
import { simplifiedAccountRoutes } from './opening/accounts/routes.ts';
import { operatorRoutes } from './operator/routes.ts';
import { spiRoutes } from './spi/routes.ts';
import { boundRequestNumbers, rejectUnstorableText } from './platform/request-guards.ts';
import type { Scope } from './platform/auth/scopes.ts';
import { loggerOptions } from './platform/logging.ts';
import { onlyPagesThere } from './platform/pages.ts';
import { reportRoutes } from './pix/reports/routes.ts';
import { scheduleRoutes } from './pix/schedules/routes.ts';
import { billingChargeRoutes } from './billing/charges/routes.ts';
import { boletoPageRoutes, boletoRoutes } from './billing/boletos/routes.ts';
import { carnetPageRoutes, carnetRoutes } from './billing/carnets/routes.ts';
import { billingNotificationRoutes } from './billing/notifications/routes.ts';
import { billingCardV2Routes } from './billing/card-v2/routes.ts';
import { billingLinkRoutes, linkPageRoutes } from './billing/links/routes.ts';
import { billingPlanRoutes } from './billing/plans/routes.ts';
import { billingSubscriptionRoutes } from './billing/subscriptions/routes.ts';
import { paymentTokenPublicRoutes, paymentTokenRoutes } from './billing/tokens/routes.ts';
import { webRoutes } from './web/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { documentRoute, SECURITY_SCHEMES } from './platform/openapi.ts';
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
import { sendRoutes, sentPixRoutes } from './pix/send/routes.ts';
import { receiptRoutes } from './pix/receipts/routes.ts';
import { splitRefundRoutes } from './pix/split/refund-routes.ts';
import { infractionRoutes } from './pix/infractions/routes.ts';
import { dictRoutes } from './pix/dict/routes.ts';
import { ofConfigRoutes } from './openfinance/config/routes.ts';
import { participantRoutes } from './openfinance/participants/routes.ts';
import { enrolmentRoutes } from './openfinance/enrolments/routes.ts';
import { ofPaymentRoutes } from './openfinance/payments/routes.ts';
import { consentRoutes } from './openfinance/consent/routes.ts';
import { ofPixRoutes } from './openfinance/pix/routes.ts';
import { ofLinkRoutes } from './openfinance/links/routes.ts';
import { billPaymentRoutes } from './billing/bills/routes.ts';
import { withDeadline } from './platform/db/deadline.ts';
import { statementRoutes } from './billing/statements/routes.ts';

export interface BuildOptions {
  logger?: boolean | object;
}

/** A family: its guard and error format wrap every route registered inside it. */
function family(
  ctx: AppContext,
  options: { format: ErrorFormat; audience?: Audience; scope?: Scope; pages?: boolean },
  ...routes: FastifyPluginAsync[]
): FastifyPluginAsync {
  return async (app) => {
    app.setErrorHandler(errorHandler(options.format));
    // The OpenAPI document derives each operation's security and error bodies from its family.
    app.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), family: { format: options.format, audience: options.audience } };
    });
    // A family-wide scope (the sandbox tools): every route in it requires it, whatever else it declares.
    if (options.scope) {
      const scope = options.scope;
      app.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), scope };
      });
    }
    // Public pages and what they fetch are served on the pages listener too (platform/pages.ts).
    if (options.pages)
      app.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), page: true };
      });
    if (options.audience) app.addHook('onRequest', guard(ctx, options.audience));
    for (const plugin of routes) await app.register(plugin);
  };
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

  await app.register(family(ctx, { format: 'oauth' }, oauthRoutes(ctx)));
  await app.register(
    family(
      ctx,
      { format: 'problem', audience: 'pix' },
      cobRoutes(ctx),
      cobvRoutes(ctx),
      lotecobvRoutes(ctx),
      receivedPixRoutes(ctx, [splitRefundGuard]),
      pixWebhookRoutes(ctx),
      splitRoutes(ctx),
    ),
  );
  await app.register(
    family(
      ctx,
      { format: 'named', audience: 'pix' },
      balanceRoutes(ctx),
      openingWebhookRoutes(ctx),
      simplifiedAccountRoutes(ctx),
    ),
  );
  await app.register(family(ctx, { format: 'problem', audience: 'pix' }, locRoutes(ctx)));
  // Automatic Pix (docs/automatic-pix.md).
  await app.register(
    family(
      ctx,
      { format: 'problem', audience: 'pix' },
      locRecRoutes(ctx),
      recRoutes(ctx),
      solicRecRoutes(ctx),
      cobrRoutes(ctx),
    ),
  );
  await app.register(family(ctx, { format: 'named', audience: 'pix' }, qrcodeRoutes(ctx)));
  await app.register(
    family(ctx, { format: 'named', audience: 'pix' }, evpRoutes(ctx), settingsRoutes(ctx), keyBucketRoutes(ctx)),
  );
  // Payers' institutions and people follow locations and QR pages: public, no token, no certificate.
  await app.register(family(ctx, { format: 'problem', pages: true }, payloadRoutes(ctx)));
  await app.register(family(ctx, { format: 'wrapper', audience: 'pix' }, cobV1Routes(ctx), scheduleRoutes(ctx)));
  // The participant-side directory and confirmations (docs/participants.md) answer errors in the wrapper too.
  await app.register(family(ctx, { format: 'wrapper', audience: 'pix' }, dictRoutes(ctx)));
  // Money out (docs/sending.md): the send answers named errors, its reads problem objects (as the SDK documents).
  await app.register(
    family(
      ctx,
      { format: 'named', audience: 'pix' },
      sendRoutes(ctx),
      providerRefundRoutes(ctx, [splitRefundGuard]),
      splitRefundRoutes(ctx),
    ),
  );
  await app.register(
    family(ctx, { format: 'problem', audience: 'pix' }, sentPixRoutes(ctx), receiptRoutes(ctx), infractionRoutes(ctx)),
  );
  // Open Finance automatic payments (docs/automatic-payments.md): {nome, mensagem} errors, as the SDK reads them;
  // the payer's consent pages are public (a person's browser, no certificate).
  await app.register(
    family(
      ctx,
      { format: 'named', audience: 'pix' },
      ofConfigRoutes(ctx),
      participantRoutes(ctx),
      enrolmentRoutes(ctx),
      ofPaymentRoutes(ctx),
      ofPixRoutes(ctx),
      ofLinkRoutes(ctx),
    ),
  );
  await app.register(family(ctx, { format: 'named', pages: true }, consentRoutes(ctx)));
  // Paying bills (docs/bill-payments.md): the SDK's own host for it, served here at its paths; named errors.
  await app.register(family(ctx, { format: 'named', audience: 'pix' }, billPaymentRoutes(ctx)));
  // CNAB statements (docs/statements.md): the SDK's Extratos family, {nome, mensagem} errors.
  await app.register(family(ctx, { format: 'named', audience: 'pix' }, statementRoutes(ctx)));
  // Reports answer problem objects although they sit under /v2/gn (docs/reports-schedules.md).
  await app.register(family(ctx, { format: 'problem', audience: 'pix' }, reportRoutes(ctx)));
  // Loaded only in the sandbox: a production node never loads a module of src/sandbox/.
  if (ctx.config.environment === 'sandbox') {
    const { sandboxRoutes } = await import('./sandbox/routes.ts');
    const { sandboxWebhookRoutes } = await import('./sandbox/webhooks.ts');
    const { sandboxInfractionRoutes } = await import('./sandbox/infractions.ts');
    const { sandboxRecRoutes } = await import('./sandbox/rec.ts');
    const { sandboxDictRoutes } = await import('./sandbox/dict.ts');
    const { sandboxFaultRoutes } = await import('./sandbox/faults/routes.ts');
    const listen = (await import('./sandbox/listen/routes.ts')).listenRoutes(ctx);
    await app.register(
      family(
        ctx,
        { format: 'problem', audience: 'pix', scope: 'sandbox.write' },
        sandboxRoutes(ctx),
        sandboxWebhookRoutes(ctx),
        sandboxInfractionRoutes(ctx),
        sandboxRecRoutes(ctx),
        sandboxDictRoutes(ctx),
        sandboxFaultRoutes(ctx),
        listen.api,
      ),
    );
    // Called by this service's own webhook deliveries (its client certificate), not by an application.
    await app.register(family(ctx, { format: 'problem' }, listen.webhook));
    const { snapshotOperatorRoutes } = await import('./sandbox/snapshot-routes.ts');
    await app.register(family(ctx, { format: 'named' }, snapshotOperatorRoutes(ctx)));
  }
  await app.register(family(ctx, { format: 'named' }, operatorRoutes(ctx)));
  // The institution's SPI gateway (docs/spi.md): its own client certificate, the operator family's format.
  await app.register(family(ctx, { format: 'named' }, spiRoutes(ctx)));
  // Card billing (docs/billing.md): billing tokens for the API; payers' browsers reach the token routes and pages.
  await app.register(
    family(
      ctx,
      { format: 'billing', audience: 'billing' },
      billingChargeRoutes(ctx),
      boletoRoutes(ctx),
      carnetRoutes(ctx),
      billingNotificationRoutes(ctx),
      billingPlanRoutes(ctx),
      billingSubscriptionRoutes(ctx),
      billingLinkRoutes(ctx),
      billingCardV2Routes(ctx),
      paymentTokenRoutes(ctx),
    ),
  );
  await app.register(
    family(
      ctx,
      { format: 'billing', pages: true },
      paymentTokenPublicRoutes(ctx),
      webRoutes(ctx),
      boletoPageRoutes(ctx),
      carnetPageRoutes(ctx),
      linkPageRoutes(ctx),
    ),
  );
  // The web console (docs/console.md): its own sessions and HTML error pages; browsers open it on the pages listener.
  await app.register(family(ctx, { format: 'named', pages: true }, consoleRoutes(ctx)));
  return app;
}
