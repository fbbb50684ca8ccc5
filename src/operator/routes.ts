/** The operator API: what `pixd` CLI commands do against a running server. Bearer operator secret. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { bearerToken } from '../platform/auth/guard.ts';
import { isValidCnpj, isValidCpf } from '../platform/documents.ts';
import { AccountInputError, createAccount } from '../accounts/service.ts';
import { operatorSecretValid } from './secret.ts';
import { scheduleOperatorRoutes } from '../pix/schedules/creation-routes.ts';
import { verifyLedger } from '../platform/ledger/verify.ts';
import { blockDocument } from '../pix/cob-v1/store.ts';
import { participantOperatorRoutes } from '../openfinance/participants/operator-routes.ts';
import {
  ConsoleUserInputError,
  consoleUsers,
  createConsoleUser,
  removeConsoleUser,
  rotateConsoleUserSecret,
  updateConsoleUser,
} from '../console/users/service.ts';
import { LIMITS } from '../platform/limits.ts';

const tags = ['Operator'];
const hide = true;
const CONSOLE_USER_STATUS = { invalid: 400, taken: 409, missing: 404 } as const;
const consoleUserName = {
  schema: {
    tags,
    hide,
    body: Type.Object(
      { name: Type.String({ maxLength: LIMITS.consoleUserNameMaxChars }) },
      { additionalProperties: false },
    ),
  },
};

/** A console user refused, in the operator API's error format; anything else goes on as it is. */
function consoleUserRefusal(error: unknown): unknown {
  return error instanceof ConsoleUserInputError
    ? new ApiError(CONSOLE_USER_STATUS[error.kind], 'usuario_invalido', error.message)
    : error;
}

/** The operator API's guard: the operator secret as a bearer token (also the sandbox's operator routes). */
export const operatorGuard = (ctx: AppContext) => async (request: FastifyRequest) => {
  const secret = bearerToken(request);
  if (!secret || !(await operatorSecretValid(ctx.db, secret)))
    throw new ApiError(401, 'nao_autorizado', 'Segredo de operador ausente ou inválido.');
};

export const operatorRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', operatorGuard(ctx));
    // `pixd schedule create` (after the hook above, so the operator secret guards it too).
    await app.register(scheduleOperatorRoutes(ctx));
    // The payer institutions of Open Finance enrolments outside the sandbox (docs/automatic-payments.md).
    await app.register(participantOperatorRoutes(ctx));

    app.post(
      '/operator/accounts',
      {
        schema: {
          tags,
          hide,
          body: Type.Object(
            {
              nome: Type.Optional(Type.String()),
              documento: Type.Optional(Type.String()),
              scopes: Type.Optional(Type.Array(Type.String())),
              logradouro: Type.Optional(Type.String()),
              cidade: Type.Optional(Type.String()),
              uf: Type.Optional(Type.String()),
              cep: Type.Optional(Type.String()),
              participant: Type.Optional(Type.Boolean()),
              ispb: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        try {
          return reply
            .status(201)
            .send(await createAccount(ctx.db, ctx.pki, ctx.clock, request.body, ctx.config.environment));
        } catch (error) {
          if (error instanceof AccountInputError) throw new ApiError(400, 'conta_invalida', error.message);
          throw error;
        }
      },
    );

    app.post(
      '/operator/console-users',
      {
        schema: {
          tags,
          hide,
          body: Type.Object(
            {
              name: Type.String({ maxLength: LIMITS.consoleUserNameMaxChars }),
              role: Type.String({ maxLength: 20 }),
              contas: Type.Array(Type.String({ maxLength: 20 }), { maxItems: LIMITS.consoleUserAccountsMax }),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        try {
          return reply.status(201).send(await createConsoleUser(ctx.db, ctx.clock.now(), request.body));
        } catch (error) {
          throw consoleUserRefusal(error);
        }
      },
    );

    app.post('/operator/console-users/remove', consoleUserName, async (request) => {
      try {
        return await removeConsoleUser(ctx.db, request.body.name);
      } catch (error) {
        throw consoleUserRefusal(error);
      }
    });

    app.post(
      '/operator/console-users/update',
      {
        schema: {
          tags,
          hide,
          body: Type.Object(
            {
              name: Type.String({ maxLength: LIMITS.consoleUserNameMaxChars }),
              role: Type.Optional(Type.String({ maxLength: 20 })),
              contas: Type.Optional(
                Type.Array(Type.String({ maxLength: 20 }), { maxItems: LIMITS.consoleUserAccountsMax }),
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        try {
          return await updateConsoleUser(ctx.db, request.body);
        } catch (error) {
          throw consoleUserRefusal(error);
        }
      },
    );

    app.post('/operator/console-users/rotate-secret', consoleUserName, async (request) => {
      try {
        return await rotateConsoleUserSecret(ctx.db, request.body.name);
      } catch (error) {
        throw consoleUserRefusal(error);
      }
    });

    // `pixd console-user list`: a read, but POST like every operator command (the CLI has one way to call).
    app.post('/operator/console-users/list', { schema: { tags, hide } }, async () => consoleUsers(ctx.db));

    // `pixd ledger verify`: a read, but POST like every operator command (the CLI has one way to call).
    app.post('/operator/ledger/verify', { schema: { tags, hide } }, async () => verifyLedger(ctx.db));

    app.post(
      '/operator/blocked-documents',
      {
        schema: {
          tags,
          hide,
          body: Type.Object(
            { documento: Type.String(), motivo: Type.String({ maxLength: 200 }) },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        const { documento, motivo } = request.body;
        if (!isValidCpf(documento) && !isValidCnpj(documento))
          throw new ApiError(400, 'documento_invalido', `"${documento}" não é um CPF ou CNPJ válido.`);
        await blockDocument(ctx.db, documento, motivo, ctx.clock.now());
        return reply.status(201).send({ documento, motivo });
      },
    );
  };
