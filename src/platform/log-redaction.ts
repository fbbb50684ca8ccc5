/**
 * What an error may carry into the log. Database errors hold the data of the statement that failed:
 * PostgreSQL's `detail` and `where` quote row values (a payer's CPF, name), PGlite's `params` hold every
 * parameter of a group-committed batch (other tenants' charges). Logged errors keep their kind, code, the
 * constraint or column involved and the statement's shape, never parameters or quoted values.
 */
import { LIMITS } from './limits.ts';

interface LoggedError {
  type: string;
  message: string;
  stack?: string;
  code?: string;
  constraint?: string;
  table?: string;
  column?: string;
  /** The statement text with its whitespace folded: placeholders only, never the values bound to them. */
  query?: string;
}

/** A SQLSTATE: five characters, digits and upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

const clip = (text: string) =>
  text.length > LIMITS.loggedErrorTextMaxChars ? `${text.slice(0, LIMITS.loggedErrorTextMaxChars)}…` : text;

export function redactedError(error: unknown): LoggedError | unknown {
  if (!(error instanceof Error)) return error;
  const e = error as Error & Record<string, unknown>;
  const fromDatabase = typeof e.code === 'string' && SQLSTATE.test(e.code);
  // A database message may quote a value ("invalid input syntax for type bigint: "…""): quotes are emptied.
  const message = fromDatabase ? e.message.replace(/"[^"]*"/g, '"…"') : e.message;
  const logged: LoggedError = { type: e.constructor?.name ?? 'Error', message: clip(message), stack: e.stack };
  if (fromDatabase) {
    logged.stack = e.stack?.replace(e.message, logged.message);
    for (const field of ['code', 'constraint', 'table', 'column'] as const)
      if (typeof e[field] === 'string') logged[field] = e[field] as string;
    if (typeof e.query === 'string') logged.query = clip(e.query.replace(/\s+/g, ' '));
  } else if (typeof e.code === 'string') {
    logged.code = e.code;
  }
  return logged;
}

/** A run of 10+ digits (CPF, CNPJ, phone, account number), punctuated or not, and an e-mail address. */
const PERSONAL_DATA = [/\+?\d[\d.\-/]{8,}\d/g, /[^\s@"'`]+@[^\s@"'`]+/g];

/**
 * A refusal's reason as it may be logged: reasons quote what the caller sent ("A chave … não está
 * registrada"), and a key or document can be a person's. Such values become `***`; the rest stays readable.
 */
export function redactedText(text: string): string {
  return clip(PERSONAL_DATA.reduce((redacted, pattern) => redacted.replace(pattern, '***'), text));
}

/** A URL that may carry a login (PIXD_SMTP_URL) as it may be logged: its user and password become `***`. */
export function redactedUrl(raw: string): string {
  const url = new URL(raw);
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  return url.toString();
}
