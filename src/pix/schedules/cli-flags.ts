/**
 * `pixd schedule create`'s flags and the operator API body they make. Kept apart from cli.ts (which loads the
 * schedule service) so that parsing a command line loads nothing of the server.
 */
import type { ScheduleCreate } from './schemas.ts';

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
