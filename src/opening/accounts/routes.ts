/**
 * Simplified accounts: POST /v1/conta-simplificada, POST /v1/conta-simplificada/:id/certificado,
 * GET /v1/conta-simplificada/:id/credenciais. Named error format; a missing scope is a 401, as on the other
 * account-opening routes (opening/routes.ts).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { requireOpeningScope } from '../routes.ts';
import {
  SimplifiedAccountBody,
  SimplifiedAccountCertificate,
  SimplifiedAccountCreated,
  SimplifiedAccountCredentials,
  SimplifiedAccountParams,
} from './schemas.ts';
import {
  issueSimplifiedCertificate,
  openSimplifiedAccount,
  simplifiedCredentials,
  type Opener,
  type SimplifiedAccountDeps,
} from './service.ts';

const tags = ['Abertura de contas: conta simplificada'];

export const simplifiedAccountRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', requireOpeningScope);
    const deps: SimplifiedAccountDeps = {
      db: ctx.db,
      pki: ctx.pki,
      clock: ctx.clock,
      environment: ctx.config.environment,
    };
    const opener = (request: FastifyRequest): Opener => ({
      accountId: request.principal.accountId,
      now: ctx.clock.forAccount(request.principal.accountId).now(),
      scopes: request.principal.scopes,
    });
    const write = { openingScope: 'gn.registration.write' } as const;

    app.post(
      '/v1/conta-simplificada',
      {
        config: { ...write, invalidRequest: 'conta_simplificada_invalida' },
        schema: {
          tags,
          summary: 'Open a simplified account for an end client, with an application holding the integrated scopes',
          body: SimplifiedAccountBody,
          response: { 200: SimplifiedAccountCreated },
        },
      },
      async (request) => openSimplifiedAccount(deps, opener(request), request.body),
    );

    app.post(
      '/v1/conta-simplificada/:idContaSimplificada/certificado',
      {
        config: write,
        schema: {
          tags,
          summary: "Issue the simplified account's client certificate (replaces the previous one)",
          params: SimplifiedAccountParams,
          response: { 200: SimplifiedAccountCertificate },
        },
      },
      async (request) => issueSimplifiedCertificate(deps, opener(request), request.params.idContaSimplificada),
    );

    app.get(
      '/v1/conta-simplificada/:idContaSimplificada/credenciais',
      {
        config: { openingScope: 'gn.registration.read' },
        schema: {
          tags,
          summary: "Read the simplified account's credentials (the client secret on the first read only)",
          params: SimplifiedAccountParams,
          response: { 200: SimplifiedAccountCredentials },
        },
      },
      async (request) => simplifiedCredentials(deps, opener(request), request.params.idContaSimplificada),
    );
  };
