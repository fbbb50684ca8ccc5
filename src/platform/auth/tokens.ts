/**
 * Access tokens: HS256 JWTs signed with a key every node reads from the database. A Pix token is bound to
 * the application's client certificate (RFC 8705 `cnf.x5t#S256`), so checking a request needs no lookup:
 * verify the signature and expiry, then compare the presented certificate's thumbprint with the claim.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';
import { LIMITS } from '../limits.ts';

export type Audience = 'pix' | 'billing';

/** Shared by every request that presents the same token (see TokenService.verified): read-only. */
export interface Principal {
  readonly clientId: string;
  readonly accountId: number;
  readonly scopes: ReadonlySet<string>;
  readonly audience: Audience;
  /** Thumbprint of the certificate the token was issued to (Pix tokens only). */
  readonly certificateSha256?: string;
}

export class TokenError extends Error {}

/** Our own tokens' header, byte for byte: anything else (another alg, `none`) is refused before any work. */
const HEADER_B64 = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Tokens already verified, by their exact text (signature included): a client reuses one token for its
   * whole hour, so the HMAC, decoding and parsing (about an eighth of a create's CPU) run once per token.
   * Expiry and audience are still checked on every use.
   */
  private readonly verified = new Map<string, { principal: Principal; expSeconds: number }>();
  /**
   * `wallMs`: tokens live on real time, never on the sandbox clock: moving the service clock must not
   * expire every tenant's tokens (nor keep a stolen one alive).
   */
  constructor(
    private readonly signingKey: Buffer,
    private readonly wallMs: () => number = Date.now,
  ) {
    this.key = new Uint8Array(signingKey);
  }

  async issue(
    principal: Omit<Principal, 'scopes'> & { scopes: string[] },
  ): Promise<{ accessToken: string; expiresInSeconds: number }> {
    const nowSeconds = Math.floor(this.wallMs() / 1000);
    const expiresInSeconds = LIMITS.tokenLifetimeSeconds;
    const accessToken = await new SignJWT({
      acc: principal.accountId,
      scope: principal.scopes.join(' '),
      ...(principal.certificateSha256 && { cnf: { 'x5t#S256': principal.certificateSha256 } }),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(principal.clientId)
      .setAudience(principal.audience)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + expiresInSeconds)
      .sign(this.key);
    return { accessToken, expiresInSeconds };
  }

  /**
   * Runs on every request, so it is plain node:crypto (a few microseconds) rather than a generic JOSE
   * verification (WebCrypto key import per call). Only tokens this service issued can pass: the header
   * must be exactly ours, the HMAC must match, then audience and expiry are checked.
   */
  async verify(token: string, audience: Audience): Promise<Principal> {
    let entry = this.verified.get(token);
    if (!entry) {
      entry = this.verifySignature(token);
      // Bounded: past the limit the cache starts over; a token is only verified again.
      if (this.verified.size >= LIMITS.verifiedTokensCachedMax) this.verified.clear();
      this.verified.set(token, entry);
    }
    if (entry.principal.audience !== audience) throw new TokenError('token inválido para esta API.');
    if (this.wallMs() / 1000 >= entry.expSeconds) throw new TokenError('token expirado.');
    return entry.principal;
  }

  private verifySignature(token: string): { principal: Principal; expSeconds: number } {
    const [header, body, signature, extra] = token.split('.');
    if (extra !== undefined || header !== HEADER_B64 || !body || !signature) throw new TokenError('token inválido.');
    // Compared as text, not as decoded bytes: base64url decoding ignores the last character's spare bits,
    // so several spellings decode to the same signature, and only the one we issued may pass.
    const expected = Buffer.from(createHmac('sha256', this.signingKey).update(`${header}.${body}`).digest('base64url'));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new TokenError('token inválido.');
    let payload: {
      sub?: string;
      acc?: number;
      scope?: string;
      aud?: string;
      exp?: number;
      cnf?: { 'x5t#S256'?: string };
    };
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw new TokenError('token inválido.');
    }
    if (payload.aud !== 'pix' && payload.aud !== 'billing') throw new TokenError('token inválido para esta API.');
    if (typeof payload.exp !== 'number') throw new TokenError('token inválido.');
    const principal: Principal = {
      clientId: String(payload.sub),
      accountId: Number(payload.acc),
      scopes: new Set(
        String(payload.scope ?? '')
          .split(' ')
          .filter(Boolean),
      ),
      audience: payload.aud,
      certificateSha256: payload.cnf?.['x5t#S256'],
    };
    return { principal: Object.freeze(principal), expSeconds: payload.exp };
  }
}

/**
 * Client secrets are 192 random bits, so a fast hash cannot be brute-forced; a slow KDF would only slow
 * token issue. Stored as hex SHA-256.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
