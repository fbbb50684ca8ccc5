/** What the billing bodies share: people, addresses and discounts (cards, boletos and carnês alike). */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';

export const strict = { additionalProperties: false } as const;
export const Cents = Type.Integer({ minimum: 1, maximum: LIMITS.billingValueMaxCents });
export const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const Address = Type.Object(
  {
    street: Text(200),
    number: Text(55),
    neighborhood: Text(255),
    zipcode: Type.String({ pattern: '^\\d{8}$' }),
    city: Text(255),
    complement: Type.Optional(Type.String({ maxLength: 55 })),
    state: Type.String({ pattern: '^[A-Z]{2}$' }),
  },
  strict,
);
export const Customer = Type.Object(
  {
    name: Type.Optional(Text(255)),
    cpf: Type.Optional(Type.String({ pattern: '^\\d{11}$' })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    phone_number: Type.Optional(Type.String({ pattern: '^\\d{10,11}$' })),
    birth: Type.Optional(Type.String({ format: 'date' })),
    address: Type.Optional(Address),
    juridical_person: Type.Optional(
      Type.Object({ corporate_name: Text(255), cnpj: Type.String({ pattern: '^\\d{14}$' }) }, strict),
    ),
  },
  strict,
);
export const Discount = Type.Object(
  { type: Type.Union([Type.Literal('currency'), Type.Literal('percentage')]), value: Type.Integer({ minimum: 1 }) },
  strict,
);

export type CustomerInput = Static<typeof Customer>;
export type DiscountInput = Static<typeof Discount>;
