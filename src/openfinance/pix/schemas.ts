/**
 * Open Finance Pix payments (`/v1/pagamentos/pix`, `/v1/pagamentos-agendados/pix`, `/v1/pagamentos-recorrentes/pix`,
 * `/v1/pagamentos-biometria/pix`) as the SDK's JSDoc types them. Shapes only; the rules across fields are in
 * service.ts.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { OfAmount, OfDate } from '../shared.ts';

const strict = { additionalProperties: false } as const;
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
export const OfPaymentId = Type.String({ minLength: 1, maxLength: 100 });
const EndToEndId = Type.String({ pattern: '^E[0-9A-Za-z]{31}$' });

export const PixPagador = Type.Object(
  {
    idParticipante: text(64),
    cpf: Type.String({ pattern: '^\\d{11}$' }),
    cnpj: Type.Optional(Type.String({ pattern: '^\\d{14}$' })),
  },
  strict,
);
export type PixPagador = Static<typeof PixPagador>;

export const PixFavorecido = Type.Object(
  {
    contaBanco: Type.Optional(
      Type.Object(
        {
          codigoBanco: Type.String({ pattern: '^\\d{3,8}$' }),
          agencia: Type.String({ pattern: '^\\d{1,4}$' }),
          documento: Type.String({ pattern: '^(\\d{11}|\\d{14})$' }),
          nome: text(140),
          conta: Type.String({ pattern: '^\\d{1,20}$' }),
          tipoConta: Type.Union([
            Type.Literal('CACC'),
            Type.Literal('SLRY'),
            Type.Literal('SVGS'),
            Type.Literal('TRAN'),
          ]),
        },
        strict,
      ),
    ),
    chave: Type.Optional(text(77)),
  },
  strict,
);
export type PixFavorecido = Static<typeof PixFavorecido>;

const pagamentoFields = {
  valor: OfAmount,
  idProprio: Type.Optional(text(100)),
  infoPagador: Type.Optional(text(140)),
  codigoCidadeIBGE: Type.Optional(Type.String({ pattern: '^\\d{7}$' })),
  qrCode: Type.Optional(text(512)),
  identificadorTransacao: Type.Optional(text(35)),
};

const Weekday = Type.Union(
  ['SEGUNDA_FEIRA', 'TERCA_FEIRA', 'QUARTA_FEIRA', 'QUINTA_FEIRA', 'SEXTA_FEIRA', 'SABADO', 'DOMINGO'].map((d) =>
    Type.Literal(d),
  ),
);

export const Recorrencia = Type.Object(
  {
    tipo: Type.Union([
      Type.Literal('diaria'),
      Type.Literal('semanal'),
      Type.Literal('mensal'),
      Type.Literal('personalizada'),
    ]),
    dataInicio: Type.Optional(OfDate),
    quantidade: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.ofRecurringParcelsMax })),
    diaDaSemana: Type.Optional(Weekday),
    diaDoMes: Type.Optional(Type.Integer({ minimum: 1, maximum: 31 })),
    datas: Type.Optional(Type.Array(OfDate, { minItems: 1, maxItems: LIMITS.ofRecurringParcelsMax })),
    descricao: Type.Optional(text(140)),
  },
  strict,
);
export type Recorrencia = Static<typeof Recorrencia>;

const startBody = <P extends TSchema>(pagamento: P) =>
  Type.Object({ pagador: PixPagador, favorecido: Type.Optional(PixFavorecido), pagamento }, strict);

export const ImmediateBody = startBody(Type.Object(pagamentoFields, strict));
export const ScheduledBody = startBody(
  Type.Object({ ...pagamentoFields, dataAgendamento: Type.Optional(OfDate) }, strict),
);
export const RecurringBody = startBody(Type.Object({ ...pagamentoFields, recorrencia: Recorrencia }, strict));
export const BiometricPaymentBody = Type.Object(
  {
    identificadorVinculo: OfPaymentId,
    favorecido: PixFavorecido,
    pagamento: Type.Object(pagamentoFields, strict),
  },
  strict,
);

/** Every kind's body, as stored: the pagamento's fields of all kinds, optional. */
export interface PixPaymentBody {
  pagador: PixPagador;
  favorecido?: PixFavorecido;
  pagamento: Static<typeof ImmediateBody>['pagamento'] & { dataAgendamento?: string; recorrencia?: Recorrencia };
}

export const StartAnswer = Type.Object({ identificadorPagamento: Type.String(), redirectURI: Type.String() });

export const ListQuery = Type.Object(
  {
    inicio: OfDate,
    fim: OfDate,
    quantidade: Type.Optional(Type.String({ pattern: '^\\d{1,3}$' })),
    pagina: Type.Optional(Type.String({ pattern: '^\\d{1,6}$' })),
    status: Type.Optional(text(20)),
    identificador: Type.Optional(OfPaymentId),
  },
  strict,
);
export type ListQuery = Static<typeof ListQuery>;

export const Devolucao = Type.Object({
  identificadorDevolucao: Type.String(),
  valor: Type.String(),
  status: Type.String(),
  dataCriacao: Type.String(),
});

const pageLinks = {
  total: Type.Integer(),
  porPagina: Type.Integer(),
  ultimo: Type.String(),
  proximo: Type.Union([Type.String(), Type.Null()]),
  anterior: Type.Union([Type.String(), Type.Null()]),
  atual: Type.String(),
};

export const PaymentItem = Type.Object({
  identificadorPagamento: Type.String(),
  endToEndId: Type.Optional(Type.String()),
  valor: Type.String(),
  status: Type.String(),
  motivo: Type.Optional(Type.String()),
  dataCriacao: Type.String(),
  /** Scheduled: the date it settles (or settled) on. */
  dataOperacao: Type.Optional(Type.String()),
  idProprio: Type.Optional(Type.String()),
  devolucoes: Type.Optional(Type.Array(Devolucao)),
});
export type PaymentItem = Static<typeof PaymentItem>;

export const RecurringItem = Type.Object({
  identificadorPagamento: Type.String(),
  valor: Type.String(),
  status: Type.String(),
  motivo: Type.Optional(Type.String()),
  dataCriacao: Type.String(),
  idProprio: Type.Optional(Type.String()),
  recorrencias: Type.Array(
    Type.Object({
      endToEndId: Type.String(),
      valor: Type.String(),
      dataOperacao: Type.String(),
      status: Type.String(),
      motivo: Type.Optional(Type.String()),
      devolucoes: Type.Array(Devolucao),
    }),
  ),
});
export type RecurringItem = Static<typeof RecurringItem>;

export const PaymentList = Type.Object({ pagamentos: Type.Array(PaymentItem), ...pageLinks });
export const RecurringList = Type.Object({ pagamentos: Type.Array(RecurringItem), ...pageLinks });
/** The SDK's ofListBiometricPixPayment names the list `vinculos`, though it holds payments. */
export const BiometricList = Type.Object({ vinculos: Type.Array(PaymentItem), ...pageLinks });

export const PaymentParams = Type.Object({ identificadorPagamento: OfPaymentId });
export const ReplaceParams = Type.Object({ identificadorPagamento: OfPaymentId, endToEndId: EndToEndId });

export const RefundBody = Type.Object({ valor: OfAmount }, strict);
export const ScheduledRefundBody = Type.Object({ endToEndId: EndToEndId, valor: OfAmount }, strict);
export const RecurringRefundBody = Type.Object(
  {
    devolucoes: Type.Array(Type.Object({ endToEndId: EndToEndId, valor: OfAmount }, strict), {
      minItems: 1,
      maxItems: LIMITS.ofRecurringParcelsMax,
    }),
  },
  strict,
);
export const RefundAnswer = Type.Object({
  identificadorPagamento: Type.String(),
  endToEndId: Type.String(),
  identificadorDevolucao: Type.String(),
  valor: Type.String(),
  dataCriacao: Type.String(),
  status: Type.String(),
});

export const RecurringRefundAnswer = Type.Array(RefundAnswer);

export const CancelAnswer = Type.Object({
  identificadorPagamento: Type.String(),
  status: Type.String(),
  dataCancelamento: Type.String(),
  endToEndId: Type.Optional(Type.String()),
});

export const ReplaceBody = Type.Object({ valor: Type.Optional(OfAmount) }, strict);
