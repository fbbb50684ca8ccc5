/** Scheduled Pix: the interface's read shapes (wrapper envelope) and this service's creation request. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { Amount, Chave, Timestamp, Txid } from '../shared/schemas.ts';

export const ScheduleStatus = Type.Union([
  Type.Literal('scheduled'),
  Type.Literal('waiting'),
  Type.Literal('finished'),
  Type.Literal('rejected'),
]);
export type ScheduleStatus = Static<typeof ScheduleStatus>;

const NullableString = () => Type.Union([Type.String(), Type.Null()]);

/** One scheduled Pix as the interface lists it (snake_case, `value` a number of currency units). */
export const ScheduleView = Type.Object({
  txid: NullableString(),
  end_user_account: Type.String({ description: 'The receiver: its Pix key, or <ispb>/<agencia>/<conta>.' }),
  receiver_name: Type.String(),
  end_to_end_id: Type.String(),
  status: ScheduleStatus,
  value: Type.Number(),
  scheduling_date: Timestamp,
  error_code: NullableString(),
  error_description: NullableString(),
});
export type ScheduleView = Static<typeof ScheduleView>;

const Envelope = {
  responseTime: Type.Number(),
  correlationId: Type.String(),
  data: Type.Array(ScheduleView),
  total: Type.Integer(),
};
export const ScheduleList = Type.Object({ ...Envelope, page: Type.Integer(), limit: Type.Integer() });
export const ScheduleRead = Type.Object(Envelope);

export const ScheduleListQuery = Type.Object(
  {
    inicio: Timestamp,
    fim: Timestamp,
    /** Pages count from 1. */
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.scheduledPixPageMax, default: 1 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: LIMITS.pageSizeMax, default: LIMITS.scheduledPixPageSizeDefault }),
    ),
  },
  { additionalProperties: false },
);
export type ScheduleListQuery = Static<typeof ScheduleListQuery>;

export const ScheduleTxidParams = Type.Object({ txid: Txid });

/** Creation (sandbox endpoint and operator API; the interface has none): a Pix this account will send. */
export const ScheduleCreateFields = {
  txid: Type.Optional(Txid),
  /** The sender's own active key: its webhook is told when the Pix is sent (envio settings). Absent: no webhook. */
  chave: Type.Optional(Chave),
  valor: Amount,
  dataAgendamento: Type.String({
    format: 'date-time',
    description: 'When the Pix is sent (service clock); in the future.',
  }),
  favorecido: Type.Object(
    {
      nome: Type.String({ minLength: 1, maxLength: LIMITS.scheduledPixReceiverNameMaxChars }),
      chave: Type.Optional(Chave),
      contaBanco: Type.Optional(
        Type.Object(
          {
            ispb: Type.String({ pattern: '^\\d{8}$' }),
            agencia: Type.String({ pattern: `^\\d{1,${LIMITS.bankAgencyMaxDigits}}$` }),
            conta: Type.String({ pattern: `^\\d{1,${LIMITS.bankAccountMaxDigits}}$` }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false, description: 'The receiver: exactly one of chave or contaBanco.' },
  ),
};
export const ScheduleCreate = Type.Object(ScheduleCreateFields, { additionalProperties: false });
export type ScheduleCreate = Static<typeof ScheduleCreate>;
