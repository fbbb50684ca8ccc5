/**
 * What the Open Finance automatic-payment resources share: their named errors ({nome, mensagem}) and the
 * shapes both enrolments and payments carry.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ApiError, type ErrorNameWithStatus, type GroupErrorName, type StatusOf } from '../platform/errors.ts';
import { AMOUNT_PATTERN } from '../platform/money.ts';

/** A 4xx of this family: `nome` is stable, `mensagem` says what to fix and names the field. */
export const ofError = <N extends GroupErrorName<'named'>>(status: StatusOf<N>, nome: N, mensagem: string) =>
  new ApiError(status, nome, mensagem);

/**
 * The Pix of a payment or parcel whose payer's institution was asked to pay it (settle.ts): only that
 * institution's answer moves it now, a moment later, so it is no longer cancelled (or replaced).
 */
export const askedOfPayerMotivo = (endToEndId: string) =>
  `O Pix ${endToEndId} já foi pedido à instituição do pagador: só a resposta dela o altera.`;

export const askedOfPayer = (endToEndId: string) =>
  ofError(422, 'pagamento_nao_cancelavel', askedOfPayerMotivo(endToEndId));

export const ofInvalid = (nome: ErrorNameWithStatus<400>, field: string, reason: string) =>
  new ApiError(400, nome, `${field}: ${reason}`, [{ property: field, reason }]);

export const OfAmount = Type.String({ pattern: AMOUNT_PATTERN, description: 'Decimal with two digits, e.g. "10.00".' });
export const OfDate = Type.String({ format: 'date', description: 'YYYY-MM-DD (Brasília calendar).' });

/** Written out literal by literal: a mapped union loses its members in the route types. */
export const IntervalSchema = Type.Union([
  Type.Literal('SEMANAL'),
  Type.Literal('MENSAL'),
  Type.Literal('TRIMESTRAL'),
  Type.Literal('SEMESTRAL'),
  Type.Literal('ANUAL'),
]);
export type Interval = Static<typeof IntervalSchema>;

export const EnrolmentStatusSchema = Type.Union([
  Type.Literal('pendente'),
  Type.Literal('autorizado'),
  Type.Literal('rejeitado'),
  Type.Literal('revogado'),
  Type.Literal('finalizado'),
]);
export type EnrolmentStatus = Static<typeof EnrolmentStatusSchema>;

export const PaymentStatusSchema = Type.Union([
  Type.Literal('pendente'),
  Type.Literal('aceito'),
  Type.Literal('rejeitado'),
  Type.Literal('cancelado'),
  Type.Literal('expirado'),
]);
export type PaymentStatus = Static<typeof PaymentStatusSchema>;

/** The SDK sends a fresh `x-idempotency-key` with every Open Finance call; a retry sends the same one. */
export const IdempotencyHeaders = Type.Object({
  'x-idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
