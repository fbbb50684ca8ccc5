/** Automatic payments (`/v1/pagamentos-automaticos/pix`), as the SDK's ofCreate/ofList/ofCancelAutomaticPixPayment type them. */
import { Type, type Static } from '@sinclair/typebox';
import { EnrolmentStatusSchema, OfAmount, OfDate, PaymentStatusSchema } from '../shared.ts';

const strict = { additionalProperties: false } as const;
const Identificador = Type.String({ minLength: 1, maxLength: 100 });
const EndToEndId = Type.String({ pattern: '^E[0-9A-Za-z]{31}$' });

export const PaymentBody = Type.Object(
  {
    identificadorAdesao: Identificador,
    pagamento: Type.Object(
      {
        valor: OfAmount,
        data: OfDate,
        codigoCidadeIBGE: Type.Optional(Type.String({ pattern: '^\\d{7}$' })),
        infoPagador: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
      },
      strict,
    ),
  },
  strict,
);
export type PaymentBody = Static<typeof PaymentBody>;

export const PaymentStatus = PaymentStatusSchema;

export const PaymentCreated = Type.Object({
  identificadorAdesao: Type.String(),
  endToEndId: Type.String(),
  status: PaymentStatus,
  data: Type.String(),
});

export const PaymentView = Type.Object({
  /** The enrolment the payment belongs to (a list by status or period may span several). */
  identificadorAdesao: Type.String(),
  idProprio: Type.Optional(Type.String()),
  endToEndId: Type.String(),
  valor: Type.String(),
  status: PaymentStatus,
  data: Type.String(),
  dataCriacao: Type.String(),
  infoPagador: Type.Optional(Type.String()),
  motivo: Type.Optional(Type.String()),
  devolucoes: Type.Optional(
    Type.Array(
      Type.Object({
        identificadorDevolucao: Type.String(),
        valor: Type.String(),
        status: Type.String(),
        dataCriacao: Type.String(),
      }),
    ),
  ),
});
export type PaymentView = Static<typeof PaymentView>;

/** By enrolment, payment, status or period: any one criterion alone, or several together. */
export const PaymentListQuery = Type.Object(
  {
    identificadorAdesao: Type.Optional(Identificador),
    endToEndId: Type.Optional(EndToEndId),
    status: Type.Optional(PaymentStatus),
    inicio: Type.Optional(OfDate),
    fim: Type.Optional(OfDate),
  },
  strict,
);
export type PaymentListQuery = Static<typeof PaymentListQuery>;

/** The enrolment's fields are there when the query names one enrolment (by its id, or by one of its payments). */
export const PaymentList = Type.Object({
  identificadorAdesao: Type.Optional(Type.String()),
  idProprio: Type.Optional(Type.String()),
  status: Type.Optional(EnrolmentStatusSchema),
  descricao: Type.Optional(Type.String()),
  pagamentos: Type.Array(PaymentView),
});

export const PaymentCancel = Type.Object(
  {
    identificadorAdesao: Identificador,
    endToEndId: EndToEndId,
    motivo: Type.Optional(Type.String({ maxLength: 200 })),
  },
  strict,
);
export type PaymentCancel = Static<typeof PaymentCancel>;

export const PaymentCancelled = Type.Object({
  identificadorAdesao: Type.String(),
  idProprio: Type.Optional(Type.String()),
  endToEndId: Type.String(),
  valor: Type.String(),
  status: PaymentStatus,
  motivo: Type.String(),
  dataCriacao: Type.String(),
});
