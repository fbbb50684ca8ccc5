/**
 * Signing in with a secret: a console user's (name and secret: their accounts, their role's scopes) or the
 * operator's (the secret alone: every account). Failures are throttled as the token endpoints' are
 * (platform/auth/failure-throttle.ts): per user name, the operator counting as one, and per source address;
 * while throttled no secret is checked, and a source's failures do not refuse another user's right secret.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { LIMITS } from '../platform/limits.ts';
import { FailureThrottle } from '../platform/auth/failure-throttle.ts';
import { operatorSecretValid } from '../operator/secret.ts';
import { consoleAccounts } from './store.ts';
import { authenticateConsoleUser, normalName } from './users/service.ts';
import { grantOf } from './users/store.ts';
import { scopesOf } from './users/roles.ts';
import type { Form } from './kit.ts';
import type { Session, SessionCodec } from './session.ts';

/** The operator's throttling identity: no user name can be it (names start with a letter or a digit). */
const OPERATOR = '(operator)';

const throttled = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    'tentativas',
    `Muitas tentativas de entrada com falha; tente novamente em ${retryAfterSeconds} s.`,
    [],
    retryAfterSeconds,
  );

export function secretSignin(ctx: AppContext, sessions: SessionCodec) {
  const throttle = new FailureThrottle(ctx.rateLimiter, 'console-signin', {
    perIdentity: LIMITS.consoleSigninFailuresPerUserMax,
    perSource: LIMITS.consoleSigninFailuresPerAddressMax,
    windowSeconds: LIMITS.consoleSigninFailureWindowSeconds,
  });

  /** The session of whoever the secret belongs to; undefined when it is wrong (or missing). */
  async function sessionFor(userName: string | undefined, secret: string | undefined): Promise<Session | undefined> {
    if (!secret) return undefined;
    if (userName) {
      const user = await authenticateConsoleUser(ctx.db, userName, secret);
      return (
        user &&
        sessions.create('user', user.account_ids, user.account_ids[0], scopesOf(user.role), {
          id: user.id,
          grant: grantOf(user),
        })
      );
    }
    if (!(await operatorSecretValid(ctx.db, secret))) return undefined;
    const all = await consoleAccounts(ctx.db);
    if (!all.length) throw new ApiError(404, 'contas', 'Nenhuma conta ainda: crie uma com `pixd account create`.');
    return sessions.create('operator', 'all', all[0].id, 'all');
  }

  return async (request: FastifyRequest, form: Form): Promise<Session> => {
    const userName = form.name?.trim() ? normalName(form.name) : undefined;
    const identity = userName ?? OPERATOR;
    const wait = await throttle.wait(identity, request.ip);
    if (wait !== undefined) throw throttled(wait);
    const session = await sessionFor(userName, form.secret);
    if (session) return session;
    const spent = await throttle.failed(identity, request.ip);
    if (spent !== undefined) throw throttled(spent);
    // An unknown name and a wrong secret answer alike: the form does not tell which names exist.
    throw new ApiError(401, 'segredo', userName ? 'Usuário ou segredo inválido.' : 'Segredo de operador inválido.');
  };
}
