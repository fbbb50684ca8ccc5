/** Payment links (SDK: createOneStepLink, defineLinkPayMethod, updateChargeLink, sendLinkEmail). */
import { Type, type Static } from '@sinclair/typebox';
import { ChargeCreate } from '../charges/schemas.ts';
import { Discount } from '../shared/schemas.ts';
import { LIMITS } from '../../platform/limits.ts';

const strict = { additionalProperties: false } as const;
const Percent = Type.Integer({
  minimum: 0,
  maximum: LIMITS.billingPercentScale - 1,
  description: 'hundredths of a percent',
});

export const LinkSettings = Type.Object(
  {
    billet_discount: Type.Optional(Percent),
    card_discount: Type.Optional(Percent),
    conditional_discount: Type.Optional(
      Type.Composite([Discount, Type.Object({ until_date: Type.String({ format: 'date' }) })], strict),
    ),
    message: Type.Optional(Type.String({ maxLength: 80 })),
    expire_at: Type.String({ format: 'date', description: 'last day (Brasília) the link takes a payment' }),
    request_delivery_address: Type.Boolean(),
    payment_method: Type.Union([Type.Literal('banking_billet'), Type.Literal('credit_card'), Type.Literal('all')]),
  },
  strict,
);
export const OneStepLink = Type.Object(
  {
    ...ChargeCreate.properties,
    customer: Type.Optional(Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) }, strict)),
    settings: LinkSettings,
  },
  strict,
);
export const LinkEmail = Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) }, strict);

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);
export const LinkAnswer = Type.Object({
  code: Type.Integer(),
  data: Type.Object({
    charge_id: Type.Integer(),
    status: Type.String(),
    total: Type.Integer(),
    custom_id: Nullable(Type.String()),
    payment_url: Type.String(),
    payment_method: Type.String(),
    billet_discount: Nullable(Type.Integer()),
    card_discount: Nullable(Type.Integer()),
    conditional_discount_value: Nullable(Type.Integer()),
    conditional_discount_type: Nullable(Type.String()),
    conditional_discount_date: Nullable(Type.String()),
    request_delivery_address: Type.Boolean(),
    message: Nullable(Type.String()),
    expire_at: Type.String(),
    created_at: Type.String(),
  }),
});

export const DeliveryAddress = Type.Object(
  {
    street: Type.String({ minLength: 1, maxLength: 200 }),
    number: Type.String({ minLength: 1, maxLength: 55 }),
    neighborhood: Type.String({ minLength: 1, maxLength: 255 }),
    zipcode: Type.String({ pattern: '^\\d{8}$' }),
    city: Type.String({ minLength: 1, maxLength: 255 }),
    complement: Type.Optional(Type.String({ maxLength: 55 })),
    state: Type.String({ pattern: '^[A-Z]{2}$' }),
  },
  strict,
);

export type LinkSettingsInput = Static<typeof LinkSettings>;
export type OneStepLinkInput = Static<typeof OneStepLink>;
export type DeliveryAddressInput = Static<typeof DeliveryAddress>;
