import { Type } from '@sinclair/typebox';

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
export const NotificationList = Type.Object({
  code: Type.Integer(),
  data: Type.Array(
    Type.Object({
      id: Type.Integer(),
      type: Type.String(),
      custom_id: Type.Union([Type.String(), Type.Null()]),
      status: Type.Object({ current: Type.String(), previous: Type.Union([Type.String(), Type.Null()]) }),
      identifiers: Type.Object({
        charge_id: Type.Optional(Type.Integer()),
        carnet_id: Type.Optional(Type.Integer()),
        subscription_id: Type.Optional(Type.Integer()),
      }),
      created_at: Type.String(),
      received_by_bank_at: Type.Optional(Type.String()),
      value: Type.Optional(Type.Integer()),
    }),
  ),
});
