/**
 * `pixd schedule create`: flags -> the operator API's body (POST /operator/schedules), and the same
 * schema check the server applies, for when the CLI opens the database itself (no server running).
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Database } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import { ScheduleCreate, type ScheduleView } from './schemas.ts';
import { SCHEDULE_INVALID, createSchedule } from './service.ts';
import { accountIdByConta } from './store.ts';

export class ScheduleCliError extends Error {}

export interface ScheduleCommand {
  /** The paying account's number; undefined: the demo account of credentials.json. */
  conta?: string;
  body: ScheduleCreate;
}

/** `pixd schedule create`'s flags: [flag with its value, the property it fills, what it means]. */
export const SCHEDULE_OPTIONS = [
  ['--conta <conta>', 'conta', "the paying account's number (default: the demo account of credentials.json)"],
  ['--valor <valor>', 'valor', 'amount, e.g. 12.34'],
  ['--data <instant>', 'dataAgendamento', 'when to send it, an ISO 8601 instant'],
  ['--favorecido <nome>', 'nome', "the recipient's name"],
  ['--chave <chave>', 'chave', "the recipient's key (or the bank data below)"],
  ['--ispb <ispb>', 'ispb', "the recipient's institution"],
  ['--agencia <agencia>', 'agencia', "the recipient's branch"],
  ['--conta-favorecido <conta>', 'contaFavorecido', "the recipient's account"],
  ['--txid <txid>', 'txid', 'an identifier of your own'],
  ['--chave-pagador <chave>', 'chavePagador', "the paying account's key whose webhook is told when it is sent"],
] as const;

export type ScheduleFlagValues = Partial<Record<(typeof SCHEDULE_OPTIONS)[number][1], string>>;

/** The operator API's body from the flags; missing values stay empty so the schema names them. */
export function scheduleCommandFrom(values: ScheduleFlagValues): ScheduleCommand {
  const bank = values.ispb !== undefined || values.agencia !== undefined || values.contaFavorecido !== undefined;
  const body: ScheduleCreate = {
    ...(values.txid !== undefined && { txid: values.txid }),
    ...(values.chavePagador !== undefined && { chave: values.chavePagador }),
    valor: values.valor ?? '',
    dataAgendamento: values.dataAgendamento ?? '',
    favorecido: {
      nome: values.nome ?? '',
      ...(values.chave !== undefined && { chave: values.chave }),
      ...(bank && {
        contaBanco: { ispb: values.ispb ?? '', agencia: values.agencia ?? '', conta: values.contaFavorecido ?? '' },
      }),
    },
  };
  return { conta: values.conta, body };
}

const validate = addFormats.default(new Ajv({ allErrors: true, strict: false })).compile(ScheduleCreate);

/** No server owns the database: check the body as the server would, then create directly. */
export async function createScheduleOffline(
  db: Database,
  clock: Clock,
  conta: string,
  body: ScheduleCreate,
): Promise<ScheduleView> {
  if (!validate(body)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ');
    throw new ScheduleCliError(`${SCHEDULE_INVALID}: ${problems}`);
  }
  const accountId = await accountIdByConta(db, conta);
  if (accountId === undefined) throw new ScheduleCliError(`no account ${conta}`);
  try {
    return await db.tx((sql) => createSchedule(sql, accountId, clock.forAccount(accountId).now(), body));
  } catch (error) {
    if (error instanceof ApiError) throw new ScheduleCliError(`${error.errorName}: ${error.detail}`);
    throw error;
  }
}

export function describeSchedule(view: ScheduleView): string {
  return `scheduled Pix ${view.end_to_end_id}${view.txid ? ` (txid ${view.txid})` : ''}: ${view.value.toFixed(2)} to ${view.receiver_name} (${view.end_user_account}) at ${view.scheduling_date}, status ${view.status}`;
}
