/**
 * What the service writes to standard output: pino lines with ISO timestamps, as JSON for machines or, on a
 * terminal, pino-pretty's coloured one-liners for people. Besides one line per request, a line per money
 * movement (`money moved`, once its transaction commits) and per webhook attempt (`webhook delivered`,
 * `webhook attempt failed`): the three questions an operator asks first.
 */
import { stdTimeFunctions, type LoggerOptions } from 'pino';
import type { Sql } from './db/database.ts';
import { redactedError } from './log-redaction.ts';

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** pino-pretty's settings: one line per event, the request line's fields folded into its message. */
const PRETTY = {
  colorize: true,
  singleLine: true,
  translateTime: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'",
  ignore: 'pid,hostname,reqId,method,path,route,statusCode,responseTimeMs',
  messageFormat: '{msg}{if method} {method} {path} {statusCode} {responseTimeMs} ms{end}',
};

/**
 * pino's settings for a level and format; silent means no logger at all (pino would still build a child
 * logger per request). `auto` is pretty on a terminal and JSON otherwise (a pipe, a file, a log shipper).
 */
export function loggerOptions(level: string, format: LogFormat = 'json', isTerminal = Boolean(process.stdout.isTTY)) {
  if (level === 'silent') return false as const;
  const options: LoggerOptions = {
    level,
    timestamp: stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization'],
    serializers: { err: redactedError },
  };
  const pretty = format === 'pretty' || (format === 'auto' && isTerminal);
  return pretty ? { ...options, transport: { target: 'pino-pretty', options: PRETTY } } : options;
}

/** The commit notification channel of journal entries: the runtime logs each once it is committed. */
export const MONEY_CHANNEL = 'money';

export interface MoneyMovement {
  kind: string;
  /** The end-to-end id, refund id or send id the entry belongs to. */
  reference: string;
  accountId: number | null;
  /** The entry's size: the sum of its positive postings. */
  amountCents: number;
}

/** Called by whoever writes a journal entry: logged only if what wrote it commits. */
export function moneyMoved(sql: Sql, movement: MoneyMovement): void {
  sql.notifyAfterCommit(`${MONEY_CHANNEL}:${JSON.stringify(movement)}`);
}
