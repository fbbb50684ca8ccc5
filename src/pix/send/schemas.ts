/** Sent Pix: request and response shapes (the official SDK's JSDoc for pixSend, pixQrCodePay, pixSendDetail*). */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { Amount, Chave, Cnpj, Cpf, PaginationQuery, Timestamp, pageEnvelope } from '../shared/schemas.ts';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';

const strict = { additionalProperties: false } as const;

export const IdEnvioParams = Type.Object({
  idEnvio: Type.String({ pattern: `^[a-zA-Z0-9]{1,${LIMITS.idEnvioMaxChars}}$` }),
});
export const SentE2eParams = Type.Object({ e2eid: Type.String({ pattern: END_TO_END_ID_PATTERN }) });

const Pagador = Type.Object(
  { chave: Chave, infoPagador: Type.Optional(Type.String({ maxLength: LIMITS.infoPagadorMaxChars })) },
  strict,
);

export const ContaBanco = Type.Object(
  {
    nome: Type.String({ minLength: 1, maxLength: LIMITS.devedorNomeMaxChars }),
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    /** The receiving institution's ISPB (8 digits); ours is 99999008. */
    codigoBanco: Type.String({ pattern: '^\\d{8}$' }),
    agencia: Type.String({ pattern: '^\\d{1,4}$' }),
    conta: Type.String({ pattern: `^\\d{1,${LIMITS.contaMaxDigits}}$` }),
    tipoConta: Type.String({ pattern: '^(cacc|svgs|slry|tran|CACC|SVGS|SLRY|TRAN)$' }),
  },
  strict,
);

/** `favorecido`: a key (optionally with the document expected to own it) or bank data; the service checks which. */
export const Favorecido = Type.Object(
  {
    chave: Type.Optional(Chave),
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    contaBanco: Type.Optional(ContaBanco),
  },
  strict,
);

export const SendRequest = Type.Object({ valor: Amount, pagador: Pagador, favorecido: Favorecido }, strict);
export type SendRequest = Static<typeof SendRequest>;

export const QrCodePayRequest = Type.Object(
  { pagador: Pagador, pixCopiaECola: Type.String({ minLength: 1, maxLength: LIMITS.pixCopiaEColaMaxChars }) },
  strict,
);
export type QrCodePayRequest = Static<typeof QrCodePayRequest>;

const SentStatus = Type.Union([
  Type.Literal('EM_PROCESSAMENTO'),
  Type.Literal('REALIZADO'),
  Type.Literal('NAO_REALIZADO'),
]);

export const SendView = Type.Object({
  idEnvio: Type.String(),
  e2eId: Type.String(),
  valor: Type.String(),
  horario: Type.Object({ solicitacao: Timestamp }),
  status: SentStatus,
});

const Identificacao = Type.Object({
  nome: Type.String(),
  cpf: Type.Optional(Type.String()),
  cnpj: Type.Optional(Type.String()),
});

export const SentPixRead = Type.Object({
  endToEndId: Type.String(),
  idEnvio: Type.String(),
  valor: Type.String(),
  /** The payer's own key. */
  chave: Type.String(),
  status: SentStatus,
  infoPagador: Type.Optional(Type.String()),
  motivo: Type.Optional(Type.String()),
  horario: Type.Object({ solicitacao: Timestamp, liquidacao: Type.Optional(Timestamp) }),
  favorecido: Type.Object({
    chave: Type.Optional(Type.String()),
    identificacao: Type.Optional(Identificacao),
    contaBanco: Type.Optional(
      Type.Object({
        nome: Type.String(),
        cpf: Type.Optional(Type.String()),
        cnpj: Type.Optional(Type.String()),
        codigoBanco: Type.String(),
        agencia: Type.String(),
        conta: Type.String(),
        tipoConta: Type.String(),
      }),
    ),
  }),
});

export const SentListQuery = Type.Object(
  { inicio: Timestamp, fim: Timestamp, status: Type.Optional(SentStatus), ...PaginationQuery },
  strict,
);
export type SentListQuery = Static<typeof SentListQuery>;

export const SentList = pageEnvelope('pix', SentPixRead);
