/**
 * Console sessions: who signed in, which accounts they may see, which one they look at, and the CSRF token
 * every change must carry. Held in this node's memory (a restart signs everyone out; behind a load balancer
 * the console needs sticky sessions, docs/console.md). The cookie carries only a random id.
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../platform/limits.ts';

export const SESSION_COOKIE = 'pixd_console';
/** Before sign-in: the sign-in form's own CSRF token (double submit), so nobody signs a browser in for it. */
export const SIGNIN_COOKIE = 'pixd_console_signin';
export const COOKIE_PATH = '/console';

export type Role = 'operator' | 'sandbox';

export interface Session {
  id: string;
  csrf: string;
  role: Role;
  /** The accounts this person may look at (`all`: the operator, every account, as they are created). */
  accountIds: number[] | 'all';
  /** What this person may do (API scopes as roles): `all` for the operator. */
  scopes: readonly string[] | 'all';
  current: number;
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
    if (at > 0) out[part.slice(0, at).trim()] = decodeURIComponent(part.slice(at + 1).trim());
  }
  return out;
}

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
  const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  create(role: Role, accountIds: number[] | 'all', current: number, scopes: readonly string[] | 'all'): Session {
    this.sweep();
    // Oldest first in a Map: the one unused longest makes room.
    if (this.sessions.size >= LIMITS.consoleSessionsMax) this.sessions.delete(this.sessions.keys().next().value!);
    const session = {
      id: randomToken(),
      csrf: randomToken(),
      role,
      accountIds,
      current,
      scopes,
      lastUsedMs: this.nowMs(),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.nowMs() - session.lastUsedMs > LIMITS.consoleSessionIdleSeconds * 1000) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastUsedMs = this.nowMs();
    // Re-inserted: the Map stays ordered by last use.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  end(id: string): void {
    this.sessions.delete(id);
  }

  private sweep(): void {
    const oldest = this.nowMs() - LIMITS.consoleSessionIdleSeconds * 1000;
    for (const [id, s] of this.sessions) if (s.lastUsedMs < oldest) this.sessions.delete(id);
  }
}

export const newSigninToken = randomToken;
