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

export const SCHEDULE_USAGE = `schedule create --valor V --data ISO_INSTANT --favorecido NOME (--chave K | --ispb I --agencia A --conta-favorecido C)
                  [--conta CONTA] [--chave-pagador K] [--txid T] [--json]
                                          schedule a Pix sent from CONTA (default: the demo account);
                                          --chave-pagador: CONTA's key whose webhook is told when it is sent`;

export class ScheduleCliError extends Error {}

export interface ScheduleCommand {
  /** The paying account's number; undefined: the demo account of credentials.json. */
  conta?: string;
  body: ScheduleCreate;
  json: boolean;
}

const FLAGS: Record<string, string> = {
  '--conta': 'conta',
  '--valor': 'valor',
  '--data': 'dataAgendamento',
  '--txid': 'txid',
  '--chave-pagador': 'chavePagador',
  '--favorecido': 'nome',
  '--chave': 'chave',
  '--ispb': 'ispb',
  '--agencia': 'agencia',
  '--conta-favorecido': 'contaFavorecido',
};

export function parseScheduleFlags(args: string[]): ScheduleCommand {
  const values: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === '--json') {
      json = true;
      continue;
    }
    const name = FLAGS[flag];
    if (!name) throw new ScheduleCliError(`unknown flag "${flag}" for schedule create\nusage: pixd ${SCHEDULE_USAGE}`);
    const value = args[++i];
    if (value === undefined) throw new ScheduleCliError(`${flag} needs a value`);
    values[name] = value;
  }
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
  return { conta: values.conta, body, json };
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
