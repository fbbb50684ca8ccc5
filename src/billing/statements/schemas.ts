/** CNAB statements (`/v1/extrato-cnab/…`, the SDK's Extratos family): files, schedules, the SFTP key. */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../../pix/shared/schemas.ts';

const Day = Type.String({ format: 'date', description: 'A Brasília calendar day, YYYY-MM-DD.' });

export const StatementFileView = Type.Object({
  nome: Type.String({ description: 'The file name, as GET /v1/extrato-cnab/download/:nome_arquivo takes it.' }),
  data_geracao: Timestamp,
  periodo_inicio: Day,
  periodo_fim: Day,
});
export const StatementFileList = Type.Array(StatementFileView);

export const FileNameParams = Type.Object({ nome_arquivo: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * What the download answers, as sent (a Buffer is not serialised): the CNAB 240 text, or its ZIP for a `.zip`
 * name (a schedule with comprimir_arquivos). The document shows strings, as OpenAPI describes a file.
 */
export const StatementFile = {
  description: 'The statement file. See docs/statements.md.',
  content: {
    'text/plain': {
      schema: Type.Unsafe<Buffer>({
        type: 'string',
        description: 'CNAB 240: records of 240 characters ended by CR LF.',
      }),
    },
    'application/zip': {
      schema: Type.Unsafe<Buffer>({ type: 'string', description: 'A ZIP holding the CNAB 240 `.RET` file.' }),
    },
  },
};

const Periodicidade = Type.Union([Type.Literal('diario'), Type.Literal('semanal'), Type.Literal('mensal')]);
const ScheduleStatus = Type.Union([Type.Literal('ativo'), Type.Literal('inativo')]);

export const ScheduleRequest = Type.Object(
  {
    periodicidade: Periodicidade,
    envia_email: Type.Optional(Type.Boolean({ description: 'Recorded; pixd sends no e-mail.' })),
    comprimir_arquivos: Type.Optional(
      Type.Boolean({ description: 'Its files are ZIPs (`.zip`) holding the CNAB `.RET`.' }),
    ),
  },
  { additionalProperties: false },
);
export type ScheduleRequest = Static<typeof ScheduleRequest>;

export const ScheduleUpdate = Type.Object(
  {
    periodicidade: Type.Optional(Periodicidade),
    status: Type.Optional(ScheduleStatus),
    envia_email: Type.Optional(Type.Boolean()),
    comprimir_arquivos: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ScheduleUpdate = Static<typeof ScheduleUpdate>;

export const ScheduleParams = Type.Object({ identificador: Type.String({ minLength: 1, maxLength: 100 }) });

export const ScheduleView = Type.Object({
  identificador: Type.String(),
  status: ScheduleStatus,
  periodicidade: Periodicidade,
  envia_email: Type.Boolean(),
  comprimir_arquivos: Type.Boolean(),
  data_criacao: Timestamp,
  proxima_execucao: Type.Union([Timestamp, Type.Null()], {
    description: 'When the next file is made (a Brasília midnight on the account clock); null while inactive.',
  }),
});
export type ScheduleView = Static<typeof ScheduleView>;
export const ScheduleList = Type.Array(ScheduleView);

export const SftpKeyView = Type.Object({
  privateKey: Type.String({ description: 'OpenSSH private key (ed25519); pixd keeps only its public half.' }),
  usuario: Type.String({ description: 'The SFTP user name: the account number.' }),
  host: Type.Optional(Type.String()),
  porta: Type.Optional(Type.Integer({ description: "The SFTP server's port; absent when this node runs none." })),
});
export type SftpKeyView = Static<typeof SftpKeyView>;
