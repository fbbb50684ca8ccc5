/**
 * The consent pages, public (no token, no client certificate: the listener asks for one but does not require
 * it): GET shows the page, POST (a plain form) decides, GET /retorno sends the browser to the application.
 * Answers are HTML, including refusals: a person reads them, not a program. One set of pages serves every
 * kind of consent (journey.ts): enrolments, Pix payments and biometric links.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { linkConsent } from '../links/consent.ts';
import { pixPaymentConsent } from '../pix/consent.ts';
import { CONSENT_PATH, decideConsent, findConsent, returnAddress, type Decision } from './journey.ts';
import { closedPage, consentPage, notFoundPage } from './page.ts';
import { enrolmentConsent } from './service.ts';

const KINDS = [enrolmentConsent, pixPaymentConsent, linkConsent];
const RETURN_PATH = '/open-finance/retorno';
const TOKEN = /^[0-9a-f]{48}$/;
const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    .type('text/html; charset=utf-8')
    .send(body);

type TokenRequest = { Params: { token: string } };
const schema = { hide: true } as const;

export const consentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const sandbox = ctx.config.environment === 'sandbox';
    const now = (accountId: number) => ctx.clock.forAccount(accountId).now();

    app.get<TokenRequest>(`${CONSENT_PATH}/:token`, { schema }, async (request, reply) => {
      const { token } = request.params;
      const subject = TOKEN.test(token)
        ? await ctx.db.tx((sql) => findConsent(sql, KINDS, token, now, sandbox))
        : undefined;
      if (!subject) return html(reply, 404, notFoundPage());
      if (!subject.pending) return html(reply, 410, closedPage(subject.page));
      return html(reply, 200, consentPage(subject.page, `${CONSENT_PATH}/${token}`));
    });

    app.post<TokenRequest & { Body: Record<string, unknown> | undefined }>(
      `${CONSENT_PATH}/:token`,
      { schema },
      async (request, reply) => {
        const { token } = request.params;
        if (!TOKEN.test(token)) return html(reply, 404, notFoundPage());
        const body = request.body ?? {};
        const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, 64) : '');
        const decisao: Decision = text('decisao') === 'recusar' ? 'recusar' : 'autorizar';
        const outcome = await ctx.db.tx((sql) =>
          decideConsent(sql, KINDS, token, { login: text('login'), senha: text('senha'), decisao }, now, {
            publicUrl: ctx.config.publicUrl,
            sandbox,
          }),
        );
        if (!outcome) return html(reply, 404, notFoundPage());
        if (outcome.decided) return reply.status(303).header('location', `${RETURN_PATH}/${token}`).send();
        if (!outcome.subject.pending) return html(reply, 410, closedPage(outcome.subject.page));
        return html(reply, 401, consentPage(outcome.subject.page, `${CONSENT_PATH}/${token}`));
      },
    );

    app.get<TokenRequest>(`${RETURN_PATH}/:token`, { schema }, async (request, reply) => {
      const { token } = request.params;
      const target = TOKEN.test(token) ? await ctx.db.tx((sql) => returnAddress(sql, KINDS, token)) : undefined;
      if (target) return reply.status(303).header('location', target).send();
      // Not decided yet (or unknown): back to the page, which says which.
      return reply.status(303).header('location', `${CONSENT_PATH}/${token}`).send();
    });
  };
