/** Schema pieces shared by the Pix charge resources (Bacen API Pix field formats). */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { AMOUNT_PATTERN } from '../../platform/money.ts';
import { TXID_PATTERN } from '../../platform/ids.ts';

export const Txid = Type.String({ pattern: TXID_PATTERN, description: 'Transaction id: 26 to 35 letters and digits.' });
export const Amount = Type.String({
  pattern: AMOUNT_PATTERN,
  description: 'Decimal string with two decimals, e.g. "10.50".',
});
export const Cpf = Type.String({ pattern: '^\\d{11}$' });
export const Cnpj = Type.String({ pattern: '^\\d{14}$' });
export const Timestamp = Type.String({ format: 'date-time' });
export const Chave = Type.String({ minLength: 1, maxLength: LIMITS.chaveMaxChars });

export const DevedorBase = {
  cpf: Type.Optional(Cpf),
  cnpj: Type.Optional(Cnpj),
  nome: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.devedorNomeMaxChars })),
};

export const InfoAdicionais = Type.Array(
  Type.Object(
    {
      nome: Type.String({ maxLength: LIMITS.infoAdicionalNomeMaxChars }),
      valor: Type.String({ maxLength: LIMITS.infoAdicionalValorMaxChars }),
    },
    { additionalProperties: false },
  ),
  { maxItems: LIMITS.infoAdicionaisMaxItems },
);

export const SolicitacaoPagador = Type.String({ maxLength: LIMITS.solicitacaoPagadorMaxChars });

export const LocRef = Type.Object({ id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

export const LocView = Type.Object({
  id: Type.Integer(),
  location: Type.String(),
  tipoCob: Type.Union([Type.Literal('cob'), Type.Literal('cobv')]),
  criacao: Timestamp,
});

export const PaginationQuery = {
  'paginacao.paginaAtual': Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.requestInt4Max, default: 0 })),
  'paginacao.itensPorPagina': Type.Optional(
    Type.Integer({ minimum: 1, maximum: LIMITS.pageSizeMax, default: LIMITS.pageSizeDefault }),
  ),
};

export const Paginacao = Type.Object({
  paginaAtual: Type.Integer(),
  itensPorPagina: Type.Integer(),
  quantidadeDePaginas: Type.Integer(),
  quantidadeTotalDeItens: Type.Integer(),
});

export function pageEnvelope<T extends TSchema>(arrayName: string, item: T, extraParams: Record<string, TSchema> = {}) {
  return Type.Object({
    parametros: Type.Object({ inicio: Timestamp, fim: Timestamp, ...extraParams, paginacao: Paginacao }),
    [arrayName]: Type.Array(item),
  });
}

export type PaginacaoView = Static<typeof Paginacao>;

export function paginacao(page: number, pageSize: number, totalItems: number): PaginacaoView {
  return {
    paginaAtual: page,
    itensPorPagina: pageSize,
    quantidadeDePaginas: Math.max(1, Math.ceil(totalItems / pageSize)),
    quantidadeTotalDeItens: totalItems,
  };
}

export const StatusCobranca = Type.Union([
  Type.Literal('ATIVA'),
  Type.Literal('CONCLUIDA'),
  Type.Literal('REMOVIDA_PELO_USUARIO_RECEBEDOR'),
  Type.Literal('REMOVIDA_PELO_PSP'),
]);
export type StatusCobranca = Static<typeof StatusCobranca>;

export const TxidParams = Type.Object({ txid: Txid });
export const RevisaoQuery = Type.Object(
  { revisao: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.requestInt4Max })) },
  { additionalProperties: false },
);

/** Query parameters every charge list takes (Bacen GET /cob and GET /cobv); kinds may add their own. */
export const ChargeListQueryFields = {
  inicio: Timestamp,
  fim: Timestamp,
  cpf: Type.Optional(Cpf),
  cnpj: Type.Optional(Cnpj),
  status: Type.Optional(StatusCobranca),
  /** Bacen: only charges with (true) or without (false) a location. */
  locationPresente: Type.Optional(Type.Boolean()),
  ...PaginationQuery,
};
