/**
 * The web console (docs/console.md): server-rendered pages under /console, served on the pages listener (no
 * client certificate asked) and the main one. Sign-in with the operator secret, as a console user (name and
 * secret: their accounts, their role's scopes), or straight in to the demo account in a sandbox reached over
 * loopback. Every change is a POST carrying the session's CSRF token (403 without it); every read and change
 * goes through the services the API uses, for the session's current account.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { readJsonFile } from '../platform/state-files.ts';
import type { Caller } from '../pix/shared/caller.ts';
import { consoleAccounts, revokeSession, sessionState } from './store.ts';
import { secretSignin } from './signin.ts';
import { LIMITS } from '../platform/limits.ts';
import { findApplication } from '../accounts/store.ts';
import type { Scope } from '../platform/auth/scopes.ts';
import {
  SESSION_COOKIE,
  SIGNIN_COOKIE,
  SessionCodec,
  cookiesOf,
  newSigninToken,
  sameToken,
  setCookie,
  type Session,
} from './session.ts';
import { bareLayout, html, layout, type Html } from './render.ts';
import { overviewPage } from './overview.ts';
import { chargeDetailPage, chargeListPage, type ChargeQuery } from './charges.ts';
import { failedPixIn, replay, webhooksPage } from './webhooks.ts';
import { LiveStreams } from './live.ts';
import { pixPage, type PixQuery } from './pix.ts';
import { cobrDetailPage } from './cobr.ts';
import { CARD_KIND, cardDetailPage } from './card.ts';
import { SUBSCRIPTION_KIND, subscriptionDetailPage } from './subscriptions.ts';
import { accountPage } from './account.ts';
import { readReport } from '../pix/reports/service.ts';
import { refusalText, requireScope, type ConsoleKit, type Form } from './kit.ts';

const HTML = 'text/html; charset=utf-8';
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/**
 * Each charge kind the console shows: the read scope of its API (`GET /v2/cob`, `/v2/cobv`, `/v2/cobr`,
 * `/v1/charge`) and its charge's page. A Map, not an object: a kind from the URL such as `constructor` must
 * find nothing, where an object would hand back what every object inherits.
 */
const CHARGE_PAGES = new Map<
  string,
  { scope: Scope; page: (ctx: AppContext, caller: Caller, session: Session, id: string) => Promise<Html> }
>([
  [
    'cob',
    { scope: 'cob.read', page: (ctx, caller, session, txid) => chargeDetailPage(ctx, caller, session, 'cob', txid) },
  ],
  [
    'cobv',
    { scope: 'cobv.read', page: (ctx, caller, session, txid) => chargeDetailPage(ctx, caller, session, 'cobv', txid) },
  ],
  ['cobr', { scope: 'cobr.read', page: cobrDetailPage }],
  [CARD_KIND, { scope: 'charge.read', page: (ctx, caller, _session, id) => cardDetailPage(ctx, caller, id) }],
  [
    SUBSCRIPTION_KIND,
    { scope: 'charge.read', page: (ctx, caller, _session, id) => subscriptionDetailPage(ctx, caller, id) },
  ],
]);

/** Where a form came from, as a path of the console (never another site's address), or `fallback`. */
function consolePathOf(referer: string | undefined, fallback: string): string {
  try {
    const url = new URL(referer ?? '');
    return url.pathname.startsWith('/console') ? `${url.pathname}${url.search}` : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Every console response: scripts, styles and requests only from pixd (the QR Code is a data: image), never
 * framed (no clickjacking of the replay or payment buttons), forms posted only here.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

function errorPage(status: number, detail: string): Html {
  const title = status === 404 ? 'Não encontrado' : status === 403 ? 'Recusado' : 'Erro';
  return bareLayout(title, html`<p>${detail}</p><p><a href="/console">Voltar ao console</a></p>`);
}

export const consoleRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const sessions = new SessionCodec(ctx.pki.tokenSigningKey);
    const live = new LiveStreams(ctx, sessions);
    const sandbox = ctx.config.environment === 'sandbox';
    const assets = path.join(path.dirname(new URL(import.meta.url).pathname), 'assets');
    const asset = (name: string) => fs.readFileSync(path.join(assets, name), 'utf8');
    const css = asset('console.css');
    const js = asset('console.js');

    app.addHook('preClose', async () => live.closeAll());
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS);
    });
    // Pages for people, not API operations: kept out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    app.setErrorHandler(async (error: Error & { statusCode?: number }, request, reply) => {
      const status = error instanceof ApiError ? error.statusCode : (error.statusCode ?? 500);
      if (status >= 500) request.log.error({ err: error }, 'console page failed');
      const detail = error instanceof ApiError ? error.detail : status < 500 ? error.message : 'Falha interna.';
      if (error instanceof ApiError && error.retryAfterSeconds)
        reply.header('retry-after', String(error.retryAfterSeconds));
      return reply
        .status(status)
        .type(HTML)
        .send(String(errorPage(status, detail)));
    });

    const callerOf = (session: Session): Caller => ({
      accountId: session.current,
      now: ctx.clock.forAccount(session.current).now(),
      publicUrl: ctx.config.publicUrl,
      chargeCreated: ctx.chargeCreatedHooks,
    });
    const kit: ConsoleKit = {
      ctx,
      callerOf,
      async render(reply, session, frame, body) {
        const accounts = await consoleAccounts(ctx.db, session.accountIds === 'all' ? undefined : session.accountIds);
        const flash = session.flash;
        if (flash) {
          session.flash = undefined;
          sessions.write(reply, session);
        }
        const page = layout({ ...frame, session, accounts, sandbox, flash }, body);
        return reply.type(HTML).header('cache-control', 'no-store').send(String(page));
      },
      guarded: (handler, scope) => async (request, reply) => {
        let session = sessions.read(cookiesOf(request)[SESSION_COOKIE]);
        // A signed cookie outlives "Sair" in any copy taken before, and its user's removal or new secret: every
        // node reads them.
        if (session && sessions.refused(session, await sessionState(ctx.db, session))) {
          setCookie(reply, SESSION_COOKIE, '', 0);
          session = undefined;
        }
        // Every use starts the idle time again (the event stream writes its own headers: nothing to set there).
        if (session) sessions.write(reply, session);
        const form = (request.body ?? {}) as Form;
        if (request.method !== 'GET') {
          if (!session || !sameToken(form._csrf, session.csrf))
            throw new ApiError(403, 'csrf', 'Pedido sem o token CSRF desta sessão: recusado. Recarregue a página.');
        } else if (!session) return reply.redirect('/console/signin');
        if (scope) requireScope(session!, scope);
        return handler(request, reply, session!, form);
      },
      done(reply, session, to, flash) {
        session.flash = flash;
        sessions.write(reply, session);
        return reply.redirect(to, 303);
      },
    };

    app.get('/console/assets/console.css', async (_r, reply) => reply.type('text/css; charset=utf-8').send(css));
    app.get('/console/assets/console.js', async (_r, reply) => reply.type('text/javascript; charset=utf-8').send(js));

    const signInWithSecret = secretSignin(ctx, sessions);
    const demoAllowed = (request: FastifyRequest) => sandbox && LOOPBACK.has(request.socket.remoteAddress ?? '');

    app.get('/console/signin', async (request, reply) => {
      const token = newSigninToken();
      setCookie(reply, SIGNIN_COOKIE, token);
      const field = html`<input type="hidden" name="_csrf" value="${token}">`;
      const body = html`${demoAllowed(request) ? html`<form method="post" action="/console/signin">${field}<input type="hidden" name="mode" value="demo"><button type="submit" class="primary">Entrar na conta demo (sandbox local)</button></form><p class="muted">ou, com usuário e segredo:</p>` : ''}
<form method="post" action="/console/signin" class="stack">${field}
<label for="name">Usuário</label>
<input id="name" name="name" autocomplete="username" autocapitalize="none" spellcheck="false" aria-describedby="name-help">
<p class="muted" id="name-help">Vazio para entrar como operador. Usuários são criados com <code>pixd console-user create</code>.</p>
<label for="secret">Segredo</label>
<input id="secret" name="secret" type="password" autocomplete="current-password" required aria-describedby="secret-help">
<p class="muted" id="secret-help">O do usuário; o de operador está em <code>operator.json</code> no diretório de dados do pixd.</p>
<button type="submit">Entrar</button></form>`;
      return reply.type(HTML).send(String(bareLayout('Entrar no console', body)));
    });

    app.post('/console/signin', async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      if (!sameToken(form._csrf, cookiesOf(request)[SIGNIN_COOKIE] ?? ''))
        throw new ApiError(403, 'csrf', 'Formulário de entrada sem o token CSRF: recarregue a página.');
      let session: Session;
      if (form.mode === 'demo') {
        if (!demoAllowed(request))
          throw new ApiError(403, 'demo', 'A conta demo só entra direto no sandbox, por loopback.');
        const credentials = readJsonFile<{ clientId: string }>(path.join(ctx.config.dataDir, 'credentials.json'));
        const application = credentials && (await findApplication(ctx.db, credentials.clientId));
        if (!application) throw new ApiError(404, 'demo', 'Este nó não tem conta demo (credentials.json).');
        const demo = Number(application.account_id);
        session = sessions.create('sandbox', [demo], demo, application.scopes);
      } else session = await signInWithSecret(request, form);
      setCookie(reply, SIGNIN_COOKIE, '', 0);
      sessions.write(reply, session);
      return reply.redirect('/console', 303);
    });

    app.post(
      '/console/signout',
      kit.guarded(async (_request, reply, session) => {
        // Gone from this browser, and refused wherever a copy of its cookie is (every node reads the revocation).
        const nowMs = Date.now();
        await revokeSession(
          ctx.db,
          session.id,
          new Date(nowMs + (LIMITS.consoleSessionIdleSeconds + LIMITS.consoleRevocationMarginSeconds) * 1000),
          new Date(nowMs),
          LIMITS.consoleRevocationsPurgedPerSignout,
        );
        setCookie(reply, SESSION_COOKIE, '', 0);
        return reply.redirect('/console/signin', 303);
      }),
    );

    app.post(
      '/console/switch',
      kit.guarded(async (request, reply, session, form) => {
        const id = Number(form.account);
        // Only an account this session was given: a forged number is refused, never switched to.
        const allowed =
          session.accountIds === 'all'
            ? (await consoleAccounts(ctx.db, [id])).length === 1
            : session.accountIds.includes(id);
        if (!allowed) throw new ApiError(404, 'conta', 'Conta não encontrada.');
        session.current = id;
        const back = String(request.headers.referer ?? '');
        const to = back.includes('/console/charges/') ? '/console/charges' : '/console';
        return kit.done(reply, session, to, { kind: 'ok', text: `Conta ${id} selecionada.` });
      }),
    );

    app.get(
      '/console',
      kit.guarded(
        async (_request, reply, session) =>
          kit.render(
            reply,
            session,
            { title: 'Visão geral', section: 'overview', live: true },
            await overviewPage(ctx, callerOf(session)),
          ),
        'gn.balance.read',
      ),
    );

    app.get(
      '/console/charges',
      kit.guarded(async (request, reply, session) => {
        const query = request.query as ChargeQuery;
        requireScope(session, CHARGE_PAGES.get(query.kind ?? 'cob')?.scope ?? 'cob.read');
        const body = await chargeListPage(ctx, callerOf(session), query);
        return kit.render(reply, session, { title: 'Cobranças', section: 'charges', live: true }, body);
      }),
    );

    app.get(
      '/console/charges/:kind/:txid',
      kit.guarded(async (request, reply, session) => {
        const { kind, txid } = request.params as { kind: string; txid: string };
        const shown = CHARGE_PAGES.get(kind);
        if (!shown) throw new ApiError(404, 'tipo', 'Tipo de cobrança desconhecido.');
        requireScope(session, shown.scope);
        const body = await shown.page(ctx, callerOf(session), session, txid);
        return kit.render(reply, session, { title: `Cobrança ${txid}`, section: 'charges', live: true }, body);
      }),
    );

    app.get(
      '/console/pix',
      kit.guarded(
        async (request, reply, session) =>
          kit.render(
            reply,
            session,
            { title: 'Pix', section: 'pix', live: true },
            await pixPage(ctx, callerOf(session), request.query as PixQuery),
          ),
        'pix.read',
      ),
    );

    app.get(
      '/console/account',
      kit.guarded(
        async (_request, reply, session) =>
          kit.render(reply, session, { title: 'Conta', section: 'account' }, await accountPage(ctx, callerOf(session))),
        'gn.settings.read',
      ),
    );

    app.get(
      '/console/reports/:id',
      kit.guarded(async (request, reply, session) => {
        const { id } = request.params as { id: string };
        const report = await readReport(ctx.db, callerOf(session), id);
        if (!report.ready) throw new ApiError(409, 'relatorio', 'O relatório ainda não está pronto.');
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${report.file.name}"`)
          .send(report.file.body);
      }, 'gn.reports.read'),
    );

    app.get(
      '/console/webhooks',
      kit.guarded(
        async (_request, reply, session) =>
          kit.render(
            reply,
            session,
            { title: 'Webhooks', section: 'webhooks', live: true },
            await webhooksPage(ctx, callerOf(session), session),
          ),
        'webhook.read',
      ),
    );

    app.post(
      '/console/webhooks/replay',
      kit.guarded(async (request, reply, session, form) => {
        const back = consolePathOf(request.headers.referer, '/console/webhooks');
        try {
          await replay(ctx, callerOf(session), [String(form.e2eid ?? '')]);
          return kit.done(reply, session, back, { kind: 'ok', text: `Reenvio de ${form.e2eid} pedido.` });
        } catch (error) {
          return kit.done(reply, session, back, { kind: 'bad', text: refusalText(error) });
        }
      }, 'webhook.write'),
    );

    app.post(
      '/console/webhooks/replay-failed',
      kit.guarded(async (_request, reply, session, form) => {
        const from = new Date(`${form.from}T00:00:00Z`);
        const to = new Date(new Date(`${form.to}T00:00:00Z`).getTime() + 86_400_000);
        if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
          return kit.done(reply, session, '/console/webhooks', { kind: 'bad', text: 'Informe o período (datas).' });
        const e2eids = await failedPixIn(ctx, session.current, from, to);
        if (!e2eids.length)
          return kit.done(reply, session, '/console/webhooks', {
            kind: 'ok',
            text: 'Nenhuma entrega falhou nesse período.',
          });
        try {
          const { reenvios } = await replay(ctx, callerOf(session), e2eids);
          return kit.done(reply, session, '/console/webhooks', {
            kind: 'ok',
            text: `${reenvios} reenvio(s) pedido(s).`,
          });
        } catch (error) {
          return kit.done(reply, session, '/console/webhooks', { kind: 'bad', text: refusalText(error) });
        }
      }, 'webhook.write'),
    );

    app.get(
      '/console/events',
      kit.guarded(async (request, reply, session) => {
        reply.hijack();
        live.open(request, reply, session);
      }),
    );

    if (sandbox) {
      // Loaded only in the sandbox: a production node never loads a module of src/sandbox/.
      const { sandboxConsoleTools } = await import('../sandbox/console.ts');
      sandboxConsoleTools.register(app, kit);
    }
  };
