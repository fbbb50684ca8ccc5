/**
 * Token endpoints. `POST /oauth/token` (Pix family): HTTP Basic client credentials over mutual TLS with the
 * application's own certificate; the token is bound to that certificate. `POST /v1/authorize` (billing):
 * the same credentials, no client certificate.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { LIMITS } from '../limits.ts';
import { findApplication } from '../../accounts/store.ts';
import { clientCertificateSha256 } from './guard.ts';
import { secretMatches, type Audience } from './tokens.ts';
import { FailureThrottle } from './failure-throttle.ts';

const TokenRequest = Type.Object({ grant_type: Type.String() });
const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});

const invalidClient = (detail: string) => new ApiError(401, 'invalid_client', detail);

/**
 * One answer for every failed client authentication (unknown client, wrong secret, inactive application,
 * right secret with another application's certificate): which part was right is not for the caller to learn.
 */
const FAILED_AUTHENTICATION = 'Credenciais inválidas ou inativas.';

function throttled(retryAfterSeconds: number): ApiError {
  return new ApiError(
    429,
    'too_many_requests',
    `Muitas tentativas de autenticação com falha; tente novamente em ${retryAfterSeconds} s.`,
    [],
    retryAfterSeconds,
  );
}

function basicCredentials(request: FastifyRequest): { clientId: string; clientSecret: string } {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header) : null;
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 1) throw invalidClient('Credenciais ausentes: envie client_id:client_secret em HTTP Basic.');
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

export const oauthRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    const throttle = new FailureThrottle(ctx.rateLimiter, 'oauth', {
      perIdentity: LIMITS.oauthFailuresPerClientMax,
      perSource: LIMITS.oauthFailuresPerAddressMax,
      windowSeconds: LIMITS.oauthFailureWindowSeconds,
    });

    async function issue(request: FastifyRequest<{ Body: { grant_type: string } }>, audience: Audience) {
      const { clientId, clientSecret } = basicCredentials(request);
      const source = request.ip;
      const presented = audience === 'pix' ? clientCertificateSha256(request) : null;
      const wait = await throttle.wait(clientId, source);
      // While throttled no secret is checked, except for a caller presenting the application's own certificate:
      // it holds the application's key, so it is not the guesser (docs/security.md).
      if (wait !== undefined && !presented) throw throttled(wait);
      const application = await findApplication(ctx.db, clientId);
      if (wait !== undefined && application?.certificate_sha256 !== presented) throw throttled(wait);
      const failed = async (): Promise<never> => {
        const spent = await throttle.failed(clientId, source);
        throw spent ? throttled(spent) : invalidClient(FAILED_AUTHENTICATION);
      };
      if (!application || !application.active || !secretMatches(clientSecret, application.secret_hash)) return failed();
      if (audience === 'pix' && presented !== application.certificate_sha256) return failed();
      const certificateSha256 = presented ?? undefined;
      if (request.body.grant_type !== 'client_credentials') {
        throw new ApiError(400, 'unsupported_grant_type', 'Apenas grant_type=client_credentials é suportado.');
      }
      const { accessToken, expiresInSeconds } = await ctx.tokens.issue({
        clientId,
        accountId: application.account_id,
        scopes: application.scopes,
        audience,
        certificateSha256,
      });
      return {
        access_token: accessToken,
        token_type: 'Bearer' as const,
        expires_in: expiresInSeconds,
        scope: application.scopes.join(' '),
      };
    }

    const schema = { tags: ['Auth'], body: TokenRequest, response: { 200: TokenResponse } };
    app.post('/oauth/token', { schema: { ...schema, summary: 'Issue a Pix access token (mutual TLS)' } }, (request) =>
      issue(request, 'pix'),
    );
    // The SDK's Open Finance family asks at its base path, which ends in /v1: the same token (docs/automatic-payments.md).
    app.post(
      '/v1/oauth/token',
      { schema: { ...schema, summary: 'Issue a Pix access token (mutual TLS), Open Finance path' } },
      (request) => issue(request, 'pix'),
    );
    app.post('/v1/authorize', { schema: { ...schema, summary: 'Issue a billing access token' } }, (request) =>
      issue(request, 'billing'),
    );
  };
