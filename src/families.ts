/**
 * The route families: which routes belong to which, and what each family sets for all of its routes (the guard,
 * how callers authenticate, and the error format, how failures are written). server.ts builds the app around
 * them; a new resource's routes are added here, in the family whose guard and errors it shares.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppContext } from './platform/context.ts';
import { errorHandler, type ErrorFormat } from './platform/errors.ts';
import { guard } from './platform/auth/guard.ts';
import type { Audience } from './platform/auth/tokens.ts';
import { oauthRoutes } from './platform/auth/routes.ts';
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
import type { Scope } from './platform/auth/scopes.ts';
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
import { statementRoutes } from './billing/statements/routes.ts';

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

/** Every family of the API and the pages, in the order they are registered. */
export async function registerFamilies(app: FastifyInstance, ctx: AppContext): Promise<void> {
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
  // Paying bills (docs/bill-payments.md): the SDK's own host for it, served here at its paths; named errors that
  // also carry `descricao`, which the SDK reads for a bar code's or a payment's failures.
  await app.register(family(ctx, { format: 'described', audience: 'pix' }, billPaymentRoutes(ctx)));
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
}
