/** What console page modules share: the kit routes.ts hands them (the sandbox tools are one such module). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import type { Caller } from '../pix/shared/caller.ts';
import type { Html, PageFrame } from './render.ts';
import type { Session } from './session.ts';
import type { Scope } from '../platform/auth/scopes.ts';

export type Form = Record<string, string | undefined>;

/** What a console page module gets to render and act with (the sandbox tools are one, loaded in the sandbox only). */
export interface ConsoleKit {
  ctx: AppContext;
  callerOf(session: Session): Caller;
  /** Renders a page in the layout for the session (flash message consumed). */
  render(
    reply: FastifyReply,
    session: Session,
    frame: Pick<PageFrame, 'title' | 'section' | 'live'>,
    body: Html,
  ): Promise<FastifyReply>;
  /**
   * A GET handler for signed-in people, or a POST one whose form carried the CSRF token; with a scope, only for
   * sessions holding it (the scope the API route doing the same thing requires).
   */
  guarded(
    handler: (request: FastifyRequest, reply: FastifyReply, session: Session, form: Form) => Promise<unknown>,
    scope?: Scope,
  ): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** After a change: back to `to` with a message shown once. */
  done(reply: FastifyReply, session: Session, to: string, flash: NonNullable<Session['flash']>): FastifyReply;
}

export interface ConsoleTools {
  register(app: FastifyInstance, kit: ConsoleKit): void;
}

/** A refused change, as a sentence for the flash message (the API's problem detail and its violations). */
export function refusalText(error: unknown): string {
  if (!(error instanceof ApiError)) throw error;
  const reasons = error.violations.map((v) => v.reason).join(' ');
  return `${error.detail}${reasons ? ` ${reasons}` : ''}`;
}

/** Scopes are the console's roles: the operator holds every one, the sandbox's demo session its application's. */
export function requireScope(session: Session, scope: Scope): void {
  if (session.scopes === 'all' || session.scopes.includes(scope)) return;
  throw new ApiError(403, 'escopo', `Esta sessão não tem o escopo ${scope}, que a API exige para isto.`);
}
