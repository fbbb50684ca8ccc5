import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';

export const PubkeyQuery = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) });
export const PayeeParams = Type.Object({ payee_code: Type.String({ minLength: 1, maxLength: 64 }) });
export const InstallmentsQuery = Type.Object({
  brand: Type.String({ minLength: 1, maxLength: 20 }),
  total: Type.Integer({ minimum: 1, maximum: LIMITS.billingValueMaxCents * LIMITS.billingItemsMax }),
});
// RSA-3072 ciphertext is 384 bytes: 512 base64 characters; the bound leaves room for URL encoding quirks.
export const CardQuery = Type.Object({ data: Type.String({ minLength: 1, maxLength: 2048 }) });

const Installment = Type.Object({
  installment: Type.Integer(),
  has_interest: Type.Boolean(),
  value: Type.Integer(),
  currency: Type.String(),
  interest_percentage: Type.Integer(),
});
export const InstallmentsView = Type.Object({
  code: Type.Integer(),
  data: Type.Object({ rate: Type.Integer(), name: Type.String(), installments: Type.Array(Installment) }),
});
export const PubkeyView = Type.Object({ code: Type.Integer(), data: Type.String() });
export const TokenView = Type.Object({
  code: Type.Integer(),
  data: Type.Object({ payment_token: Type.String(), card_mask: Type.String() }),
});
