/** Due charges (`cobv`): request and response shapes after Bacen CobVSolicitada, CobVRevisada and CobVCompleta. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { PixView } from '../received/schemas.ts';
import { Recebedor } from '../shared/recebedor.ts';
import { AMOUNT_PATTERN } from '../../platform/money.ts';
import {
  Amount,
  Chave,
  ChargeListQueryFields,
  DevedorBase,
  InfoAdicionais,
  LocRef,
  LocView,
  SolicitacaoPagador,
  StatusCobranca,
  Timestamp,
  pageEnvelope,
} from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

/** A calendar date, YYYY-MM-DD (ISO 8601), checked to exist (no 2025-02-30). */
export const CalendarDate = Type.String({ format: 'date', description: 'Calendar date YYYY-MM-DD.' });

const Calendario = Type.Object(
  {
    dataDeVencimento: CalendarDate,
    validadeAposVencimento: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: LIMITS.cobvValidadeAposVencimentoMaxDays,
        description: `Calendar days after the due date during which the charge can still be paid (default ${LIMITS.cobvValidadeAposVencimentoDefaultDays}).`,
      }),
    ),
  },
  strict,
);

/** Bacen DadosDevedor for due charges: the payer is required and may carry an address. */
export const DevedorCobV = Type.Object(
  {
    ...DevedorBase,
    email: Type.Optional(Type.String({ maxLength: LIMITS.devedorEmailMaxChars })),
    logradouro: Type.Optional(Type.String({ maxLength: LIMITS.devedorLogradouroMaxChars })),
    cidade: Type.Optional(Type.String({ maxLength: LIMITS.devedorCidadeMaxChars })),
    uf: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'State code, two capital letters.' })),
    cep: Type.Optional(Type.String({ pattern: '^\\d{8}$', description: 'Postal code, eight digits.' })),
  },
  strict,
);

/** Bacen writes money and percentages alike as \d{1,10}\.\d{2}; the modalidade says which it is. */
const ValorPerc = Type.String({
  pattern: AMOUNT_PATTERN,
  description: 'Amount or percentage with two decimals, per modalidade.',
});
const modalidade = (maximum: number, description: string) => Type.Integer({ minimum: 1, maximum, description });

export const Multa = Type.Object(
  { modalidade: modalidade(2, '1 fixed value, 2 percentage of valor.original.'), valorPerc: ValorPerc },
  strict,
);
export const Juros = Type.Object(
  {
    modalidade: modalidade(
      8,
      'Calendar days: 1 value per day, 2 percent per day, 3 percent per month, 4 percent per year. Business days: 5 value, 6 percent per day, 7 per month, 8 per year.',
    ),
    valorPerc: ValorPerc,
  },
  strict,
);
export const Abatimento = Type.Object(
  { modalidade: modalidade(2, '1 fixed value, 2 percentage of valor.original.'), valorPerc: ValorPerc },
  strict,
);
export const Desconto = Type.Object(
  {
    modalidade: modalidade(
      6,
      '1 fixed value until the date(s), 2 percentage until the date(s), 3 value per calendar day of anticipation, 4 value per business day, 5 percent per calendar day, 6 percent per business day.',
    ),
    valorPerc: Type.Optional(ValorPerc),
    descontoDataFixa: Type.Optional(
      Type.Array(Type.Object({ data: CalendarDate, valorPerc: ValorPerc }, strict), {
        minItems: 1,
        maxItems: LIMITS.cobvDescontoDataFixaMaxItems,
      }),
    ),
  },
  strict,
);

const Valor = Type.Object(
  {
    original: Amount,
    multa: Type.Optional(Multa),
    juros: Type.Optional(Juros),
    abatimento: Type.Optional(Abatimento),
    desconto: Type.Optional(Desconto),
  },
  strict,
);
export type CobVValor = Static<typeof Valor>;

const cobvFields = {
  calendario: Calendario,
  devedor: DevedorCobV,
  loc: Type.Optional(LocRef),
  valor: Valor,
  chave: Chave,
  solicitacaoPagador: Type.Optional(SolicitacaoPagador),
  infoAdicionais: Type.Optional(InfoAdicionais),
};

export const CobVCreate = Type.Object(cobvFields, strict);
export type CobVCreate = Static<typeof CobVCreate>;

/** A revision: any field; `calendario` and `valor` merge one level deep, `devedor` is replaced whole. */
export const CobVPatch = Type.Object(
  {
    ...Type.Partial(Type.Object(cobvFields)).properties,
    calendario: Type.Optional(Type.Partial(Calendario, strict)),
    valor: Type.Optional(Type.Partial(Valor, strict)),
    status: Type.Optional(Type.Literal('REMOVIDA_PELO_USUARIO_RECEBEDOR')),
  },
  strict,
);
export type CobVPatch = Static<typeof CobVPatch>;

/**
 * What is stored per revision: the request fields with defaults filled and loc kept apart. The payment
 * engine and the payload read it through `amount.ts`.
 */
export interface CobVBody {
  calendario: { dataDeVencimento: string; validadeAposVencimento: number };
  devedor: Static<typeof DevedorCobV>;
  valor: CobVValor;
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: Static<typeof InfoAdicionais>;
}

/** Bacen CobVCompleta: with `recebedor` (the account holder and address, required there); `pix` once paid. */
export const CobVView = Type.Object({
  calendario: Type.Object({
    criacao: Timestamp,
    dataDeVencimento: Type.String(),
    validadeAposVencimento: Type.Integer(),
  }),
  txid: Type.String(),
  revisao: Type.Integer(),
  loc: Type.Optional(LocView),
  location: Type.Optional(Type.String()),
  status: StatusCobranca,
  devedor: DevedorCobV,
  recebedor: Recebedor,
  valor: Valor,
  chave: Type.String(),
  solicitacaoPagador: Type.Optional(Type.String()),
  infoAdicionais: Type.Optional(Type.Array(Type.Object({ nome: Type.String(), valor: Type.String() }))),
  pixCopiaECola: Type.Optional(Type.String()),
  pix: Type.Optional(Type.Array(PixView)),
});
export type CobVView = Static<typeof CobVView>;

export const CobVListQuery = Type.Object(
  {
    ...ChargeListQueryFields,
    // Bacen spells it loteCobVId, the interface loteCobvId; both are accepted and mean the same.
    loteCobVId: Type.Optional(Type.Integer({ minimum: 0, description: 'Only charges of this batch.' })),
    loteCobvId: Type.Optional(Type.Integer({ minimum: 0, description: 'Same as loteCobVId.' })),
  },
  strict,
);
export type CobVListQuery = Static<typeof CobVListQuery>;

export const CobVList = pageEnvelope('cobs', CobVView);
