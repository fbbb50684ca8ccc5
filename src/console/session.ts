/**
 * Console sessions: who signed in, which accounts they may see, which one they look at, what they may do,
 * and the CSRF token every change must carry. The session travels in its cookie, signed with a key derived
 * from the service's token signing key (the same on every node, kept in the database), so any node of a
 * cluster reads it and a restart signs nobody out. Each request slides its idle expiry. "Sair" records the
 * session's id as revoked in the database (console/store.ts), which every request checks: a copy of the cookie
 * taken before is refused on every node; so is every session of a console user the operator removed, gave a
 * new secret, role or accounts (the session carries a MAC of what the user held at sign-in, compared with what
 * the database holds now, console/users/store.ts `grantOf`). The CSRF token is a MAC of the session's random id: never in the cookie, the same
 * for the session's whole life.
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../platform/limits.ts';
import type { SessionState } from './store.ts';

export const SESSION_COOKIE = 'pixd_console';
/** Before sign-in: the sign-in form's own CSRF token (double submit), so nobody signs a browser in for it. */
export const SIGNIN_COOKIE = 'pixd_console_signin';
export const COOKIE_PATH = '/console';
/** A flash message is cut to this many characters: it rides in the cookie. */
const FLASH_MAX_CHARS = 400;

/** Who signed in: the operator, the sandbox's demo account, or a console user (docs/console.md). */
export type Role = 'operator' | 'sandbox' | 'user';

export interface Session {
  id: string;
  csrf: string;
  role: Role;
  /** The accounts this person may look at (`all`: the operator, every account, as they are created). */
  accountIds: number[] | 'all';
  /** What this person may do (API scopes as roles): `all` for the operator. */
  scopes: readonly string[] | 'all';
  current: number;
  /** A console user's id: their removal ends the session (`SessionCodec.refused`). */
  userId?: number;
  /** What a console user held at sign-in (secret, role, accounts), as a MAC: a change ends the session. */
  userMark?: string;
  lastUsedMs: number;
  /** A message shown once, on the page a change redirects to. */
  flash?: { kind: 'ok' | 'bad'; text: string };
}

const randomToken = () => crypto.randomBytes(24).toString('base64url');

export function sameToken(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length) return false;
  return crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export function cookiesOf(request: FastifyRequest): Record<string, string> {
  const header = request.headers.cookie ?? '';
  const out: Record<string, string> = {};
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) {
      try {
        out[part.slice(0, at).trim()] = decodeURIComponent(part.slice(at + 1).trim());
      } catch {
        // A cookie that is not ours and not well encoded: ignored.
      }
    }
  }
  return out;
}

/** Sets (or, written again in the same response, replaces) a cookie of the console's path. */
export function setCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds?: number): void {
  const attributes = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${COOKIE_PATH}`,
    'HttpOnly',
    'Secure',
    'SameSite=Strict',
  ];
  if (maxAgeSeconds !== undefined) attributes.push(`Max-Age=${maxAgeSeconds}`);
  const existing = reply.getHeader('set-cookie');
  const list = (Array.isArray(existing) ? existing : existing ? [String(existing)] : []).filter(
    (cookie) => !cookie.startsWith(`${name}=`),
  );
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

type Stored = Omit<Session, 'csrf'>;

export class SessionCodec {
  private readonly key: Buffer;

  constructor(
    secret: Buffer,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.key = crypto.createHmac('sha256', secret).update('pixd console session v1').digest();
  }

  private mac(text: string): string {
    return crypto.createHmac('sha256', this.key).update(text).digest('base64url');
  }

  create(
    role: Role,
    accountIds: number[] | 'all',
    current: number,
    scopes: readonly string[] | 'all',
    user?: { id: number; grant: string },
  ): Session {
    const id = randomToken();
    return {
      id,
      csrf: this.mac(`csrf:${id}`),
      role,
      accountIds,
      current,
      scopes,
      ...(user && { userId: user.id, userMark: this.userMark(user.id, user.grant) }),
      lastUsedMs: this.nowMs(),
    };
  }

  /** Never the secret's hash itself: the cookie is signed, not encrypted, and its holder may read it. */
  private userMark(userId: number, grant: string): string {
    return this.mac(`user:${userId}:${grant}`);
  }

  /** Whether a session is over before its time: signed out, or its user removed or changed. */
  refused(session: Session, state: SessionState): boolean {
    if (state.revoked) return true;
    if (session.userId === undefined) return false;
    return state.userGrant === null || !sameToken(session.userMark, this.userMark(session.userId, state.userGrant));
  }

  /** The session a cookie carries, if its signature holds and it was used recently enough. */
  read(cookie: string | undefined): Session | undefined {
    if (!cookie) return undefined;
    const dot = cookie.lastIndexOf('.');
    if (dot < 0) return undefined;
    const body = cookie.slice(0, dot);
    if (!sameToken(cookie.slice(dot + 1), this.mac(body))) return undefined;
    let stored: Stored;
    try {
      stored = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Stored;
    } catch {
      return undefined;
    }
    if (this.nowMs() - stored.lastUsedMs > LIMITS.consoleSessionIdleSeconds * 1000) return undefined;
    return { ...stored, csrf: this.mac(`csrf:${stored.id}`) };
  }

  /** Writes the session into the response's cookie, its idle time starting again. */
  write(reply: FastifyReply, session: Session): void {
    session.lastUsedMs = this.nowMs();
    if (session.flash) session.flash = { ...session.flash, text: session.flash.text.slice(0, FLASH_MAX_CHARS) };
    const { csrf: _derived, ...stored } = session;
    const body = Buffer.from(JSON.stringify(stored)).toString('base64url');
    setCookie(reply, SESSION_COOKIE, `${body}.${this.mac(body)}`);
  }
}

export const newSigninToken = randomToken;
