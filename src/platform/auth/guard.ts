/**
 * The request guards of the two API families. Pix: client certificate AND a bearer token bound to that
 * certificate, then the route's scope, then the rate limit. Billing: bearer token only.
 * Routes declare what they need in `config` (`scope`, `rateLimited`); the guard enforces it.
 */
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError, type ErrorNameWithStatus } from '../errors.ts';
import { LIMITS } from '../limits.ts';
import type { AppContext } from '../context.ts';
import type { RateDecision } from '../ratelimit.ts';
import { TokenError, type Audience, type Principal } from './tokens.ts';
import type { Scope } from './scopes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: Scope;
    rateLimited?: boolean;
    invalidRequest?: ErrorNameWithStatus<400>;
    propertyRoot?: string;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const thumbprints = new WeakMap<TLSSocket, string | null>();

/** SHA-256 of the verified client certificate on this connection, or null. Computed once per connection. */
export function clientCertificateSha256(request: FastifyRequest): string | null {
  const socket = request.raw.socket as TLSSocket;
  let thumbprint = thumbprints.get(socket);
  if (thumbprint === undefined) {
    const cert =
      typeof socket.getPeerCertificate === 'function' && socket.authorized ? socket.getPeerCertificate() : undefined;
    thumbprint = cert?.fingerprint256 ? cert.fingerprint256.replaceAll(':', '').toLowerCase() : null;
    thumbprints.set(socket, thumbprint);
  }
  return thumbprint;
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match ? match[1] : null;
}

/** The sandbox's rate-limit fault (docs/faults.md): the account's budget spent on demand, nothing counted. */
async function spentOnDemand(ctx: AppContext, accountId: number): Promise<RateDecision | undefined> {
  if (!ctx.faults?.active(accountId, 'limite')) return undefined;
  return (await ctx.faults.take(ctx.db, accountId, 'limite')) ? { allowed: false, retryAfterSeconds: 1 } : undefined;
}

export function guard(ctx: AppContext, audience: Audience): onRequestHookHandler {
  return async function authenticate(request) {
    const thumbprint = audience === 'pix' ? clientCertificateSha256(request) : null;
    if (audience === 'pix' && !thumbprint)
      throw new ApiError(401, 'Unauthorized', 'Certificado de cliente ausente ou não emitido por esta instituição.');
    const token = bearerToken(request);
    if (!token) throw new ApiError(401, 'Unauthorized', 'Token de acesso ausente.');
    let principal: Principal;
    try {
      principal = await ctx.tokens.verify(token, audience);
    } catch (error) {
      if (error instanceof TokenError)
        throw new ApiError(401, 'Unauthorized', `Token de acesso inválido: ${error.message}`);
      throw error;
    }
    if (audience === 'pix' && principal.certificateSha256 !== thumbprint) {
      throw new ApiError(403, 'AcessoNegado', 'O certificado apresentado não pertence à aplicação do token.');
    }
    // routeOptions is built anew on every read: read it once.
    const { scope, rateLimited, method, url } = request.routeOptions.config;
    if (scope && !principal.scopes.has(scope)) throw new ApiError(403, 'AcessoNegado', `Escopo necessário: ${scope}.`);
    if (rateLimited) {
      const decision =
        (await spentOnDemand(ctx, principal.accountId)) ??
        (await ctx.rateLimiter.hit(`${principal.clientId}:${method} ${url}`, LIMITS.rateLimitRequestsPerSecond));
      if (!decision.allowed) {
        throw new ApiError(
          429,
          'LimiteDeRequisicoes',
          `Limite de ${LIMITS.rateLimitRequestsPerSecond} requisições por segundo atingido; tente novamente em ${decision.retryAfterSeconds} s.`,
        );
      }
    }
    request.principal = principal;
  };
}
