/**
 * Paying bills (the SDK's pay* methods, docs/bill-payments.md): request and response shapes. Amounts are
 * integer cents, as in the rest of the billing API and the SDK's examples (`valores.final: 902`).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { PaginationQuery, Timestamp, pageEnvelope } from '../../pix/shared/schemas.ts';
import { WebhookUrl } from '../../pix/webhook/schemas.ts';

const strict = { additionalProperties: false } as const;

const CalendarDate = Type.String({ format: 'date', description: 'YYYY-MM-DD (Brasília calendar).' });
const Cents = Type.Integer({ description: 'Cents.' });

/** The code as typed: digits, with or without the usual separators; what is wrong with it is the parser's to say. */
export const CodBarrasParams = Type.Object({
  codBarras: Type.String({
    minLength: 1,
    maxLength: 64,
    description: '44-digit barcode, 47-digit linha digitável (boleto) or 48-digit one (arrecadação).',
  }),
});

/** Payment ids are numbers (GET /v1/resumo lists failed ones as such); the route's path admits only digits. */
export const ID_PAGAMENTO_PATTERN = '^[0-9]{1,18}$';
export const IdPagamentoParams = Type.Object({
  idPagamento: Type.String({ pattern: ID_PAGAMENTO_PATTERN }),
});

export const PayBody = Type.Object(
  {
    valor: Type.Integer({ minimum: 1, maximum: LIMITS.billingValueMaxCents, description: 'Cents to pay.' }),
    dataPagamento: CalendarDate,
    descricao: Type.Optional(Type.String({ maxLength: LIMITS.billPaymentDescriptionMaxChars })),
  },
  strict,
);
export type PayBody = Static<typeof PayBody>;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Party = Type.Object({ nome: Type.String(), documento: Type.String() });
const Beneficiary = Type.Object({ nome: Type.String(), fantasia: Type.String(), documento: Type.String() });

const BoletoDetail = Type.Object({
  tipo: Type.Literal('boleto'),
  banco: Type.Object({ codigo: Type.Integer(), nome: Type.String() }),
  codBarras: Type.String(),
  linhaDigitavel: Type.String(),
  datas: Type.Object({ vencimento: Nullable(CalendarDate), limitePagamento: Nullable(CalendarDate) }),
  beneficiario: Nullable(Beneficiary),
  pagador: Nullable(Party),
  valores: Type.Object({
    original: Cents,
    abatimento: Cents,
    multa: Cents,
    juros: Cents,
    desconto: Cents,
    final: Cents,
  }),
  informacoesPagamento: Type.Object({
    divergente: Type.Object({ deveAceitar: Type.Boolean(), valorMinimo: Cents, valorMaximo: Cents }),
    parcial: Type.Object({ deveAceitar: Type.Boolean(), limiteDePagamentos: Type.Integer() }),
    podeSerPago: Type.Boolean(),
  }),
});

const TributoDetail = Type.Object({
  tipo: Type.Literal('tributo'),
  banco: Type.Null(),
  codBarras: Type.String(),
  linhaDigitavel: Type.String(),
  datas: Type.Object({ vencimento: Nullable(CalendarDate), limitePagamento: Type.Null() }),
  beneficiario: Type.Null(),
  pagador: Type.Null(),
  sacadorAvalista: Type.Null(),
  /** What the arrecadação layout carries (pixd's own addition; the SDK reads the fields above). */
  segmento: Type.Integer(),
  identificacaoEmpresa: Type.String(),
  valores: Type.Object({ original: Cents, abatimento: Nullable(Cents), pago: Nullable(Cents), final: Cents }),
  informacoesPagamento: Type.Null(),
});

export const BarcodeDetail = Type.Union([BoletoDetail, TributoDetail]);
export type BarcodeDetail = Static<typeof BarcodeDetail>;

/** Written out literal by literal: a mapped union loses its members in the route types. */
const StatusSchema = Type.Union([
  Type.Literal('EM_PROCESSAMENTO'),
  Type.Literal('AGENDADO'),
  Type.Literal('EXECUTADO'),
  Type.Literal('LIQUIDADO'),
  Type.Literal('CANCELADO'),
  Type.Literal('NAO_REALIZADO'),
]);
export type BillPaymentStatus = Static<typeof StatusSchema>;

const PaymentDates = Type.Object({ solicitacao: Timestamp, pagamento: CalendarDate });

export const PaymentRequested = Type.Object({
  idPagamento: Type.String(),
  valorPago: Cents,
  status: StatusSchema,
  data: PaymentDates,
});

/** GET /v1/:idPagamento, and the body of every bill-payment webhook call. */
export const PaymentView = Type.Object({
  idPagamento: Type.String(),
  codBarras: Type.String(),
  linhaDigitavel: Type.String(),
  valorPago: Cents,
  status: StatusSchema,
  protocolo: Nullable(Type.String()),
  motivoRecusa: Nullable(Type.String()),
  data: PaymentDates,
  descricao: Type.Optional(Type.String()),
});
export type PaymentView = Static<typeof PaymentView>;

export const SummaryQuery = Type.Object({ dataInicio: CalendarDate, dataFim: CalendarDate }, strict);
export type SummaryQuery = Static<typeof SummaryQuery>;

export const Summary = Type.Object({
  datas: Type.Object({ inicial: CalendarDate, final: CalendarDate }),
  solicitacoes: Type.Object({
    total: Type.Integer(),
    processando: Type.Integer(),
    sucesso: Type.Integer(),
    falha: Type.Integer(),
    cancelada: Type.Integer(),
  }),
  solicitacoesFalhas: Type.Array(Type.Integer()),
});

export const BillWebhookBody = Type.Object({ url: WebhookUrl }, strict);
export type BillWebhookBody = Static<typeof BillWebhookBody>;

export const BillWebhookListQuery = Type.Object(
  { dataInicio: Timestamp, dataFim: Timestamp, ...PaginationQuery },
  strict,
);
export type BillWebhookListQuery = Static<typeof BillWebhookListQuery>;
export const BillWebhookList = pageEnvelope('webhooks', Type.Object({ url: Type.String(), criacao: Timestamp }));
