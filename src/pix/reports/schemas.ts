/** Reconciliation report request and status (Efí `extrato-conciliacao`). */
import { Type, type Static, type TBoolean, type TOptional } from '@sinclair/typebox';
import { Timestamp } from '../shared/schemas.ts';
import { TIPO_REGISTROS, type TipoRegistro } from './record-types.ts';

const TipoRegistrosFields = Object.fromEntries(TIPO_REGISTROS.map((key) => [key, Type.Optional(Type.Boolean())])) as {
  [K in TipoRegistro]: TOptional<TBoolean>;
};

export const ReportRequest = Type.Object(
  {
    /** A Brasília calendar day before today (checked against the service clock in the service). */
    dataMovimento: Type.String({
      format: 'date',
      description: 'Day of the movements, YYYY-MM-DD (Brasília), before today.',
    }),
    tipoRegistros: Type.Object(TipoRegistrosFields, {
      additionalProperties: false,
      minProperties: 1,
      description: 'Record types to include; keys not given are left out.',
    }),
  },
  { additionalProperties: false },
);
export type ReportRequest = Static<typeof ReportRequest>;

export const ReportStatus = Type.Union([
  Type.Literal('AGUARDANDO_PROCESSAMENTO'),
  Type.Literal('EM_PROCESSAMENTO'),
  Type.Literal('CONCLUIDO'),
]);
export type ReportStatus = Static<typeof ReportStatus>;

export const ReportView = Type.Object({ id: Type.String(), dataSolicitacao: Timestamp, status: ReportStatus });
export type ReportView = Static<typeof ReportView>;

export const ReportIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** What GET answers once the file is ready (OpenAPI only: the body is streamed as it is stored). */
export const ReportFile = Type.String({
  description: 'Semicolon-separated text: header (H), data lines (D), trailer (T). See docs/reports-schedules.md.',
});
