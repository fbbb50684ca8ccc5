/**
 * Webhook URLs: what a registration accepts, and where each kind of callback goes.
 * The registered URL is kept verbatim, query included (an `hmac` secret, `ignorar=`), and every callback
 * carries that query unchanged.
 */
import { LIMITS } from '../limits.ts';

export type UrlProblem = { cause: 'invalid_url' | 'protocol'; detail: string };

/** Parses a registration URL: absolute, HTTPS, no credentials, no fragment. */
export function checkWebhookUrl(raw: string): URL | UrlProblem {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { cause: 'invalid_url', detail: `"${raw}" não é uma URL absoluta válida.` };
  }
  if (url.protocol !== 'https:')
    return { cause: 'protocol', detail: `A URL deve usar HTTPS (recebido ${url.protocol.replace(':', '')}).` };
  if (raw.length > LIMITS.webhookUrlMaxChars)
    return { cause: 'invalid_url', detail: `A URL passa de ${LIMITS.webhookUrlMaxChars} caracteres.` };
  if (url.username || url.password) return { cause: 'invalid_url', detail: 'A URL não pode conter usuário ou senha.' };
  if (url.hash) return { cause: 'invalid_url', detail: 'A URL não pode conter fragmento (#).' };
  return url;
}

export function isUrlProblem(value: URL | UrlProblem): value is UrlProblem {
  return !(value instanceof URL);
}

/** A registered URL ending in `ignorar=` (e.g. `?hmac=x&ignorar=`) receives callbacks without the suffix. */
const IGNORE_SUFFIX = /[?&]ignorar=$/;

/**
 * Where a callback of a kind goes: the registered URL with `suffix` (`/pix`, `/rec`, `/cobr`) appended to
 * its path, the query kept as it is; or the registered URL itself when it ends in `ignorar=`.
 * A trailing slash is not doubled: `https://h/api/webhook/` gives `https://h/api/webhook/pix`.
 */
export function callbackUrl(registered: string, suffix: string): string {
  if (!suffix || IGNORE_SUFFIX.test(registered)) return registered;
  const queryAt = registered.indexOf('?');
  const base = queryAt < 0 ? registered : registered.slice(0, queryAt);
  const query = queryAt < 0 ? '' : registered.slice(queryAt);
  return base.replace(/\/+$/, '') + suffix + query;
}
