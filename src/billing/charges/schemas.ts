/** Card/billing charge bodies and views (spec: Card/billing charge resource). Amounts are integer cents. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';

const strict = { additionalProperties: false } as const;
const Cents = Type.Integer({ minimum: 1, maximum: LIMITS.billingValueMaxCents });
const Percent = Type.Integer({
  minimum: 1,
  maximum: LIMITS.billingPercentScale,
  description: 'hundredths of a percent: 10000 = 100 %',
});
const PayeeCode = Type.String({ pattern: '^[a-zA-Z0-9]{32}$' });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const Item = Type.Object(
  {
    name: Text(LIMITS.billingNameMaxChars),
    value: Cents,
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.billingItemAmountMax })),
    marketplace: Type.Optional(Type.Object({ payee_code: PayeeCode, percentage: Percent }, strict)),
  },
  strict,
);
export const Shipping = Type.Object(
  { name: Text(LIMITS.billingNameMaxChars), value: Cents, payee_code: Type.Optional(PayeeCode) },
  strict,
);
export const Metadata = Type.Object(
  {
    custom_id: Type.Optional(Type.Union([Text(LIMITS.billingCustomIdMaxChars), Type.Null()])),
    notification_url: Type.Optional(
      Type.Union([
        Type.String({
          format: 'uri',
          maxLength: LIMITS.billingNotificationUrlMaxChars,
          description: 'HTTPS (pixd presents its client certificate); http:// and other schemes are refused.',
        }),
        Type.Null(),
      ]),
    ),
  },
  strict,
);

const Address = Type.Object(
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
const Customer = Type.Object(
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

export const CreditCard = Type.Object(
  {
    customer: Customer,
    installments: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.billingInstallmentsMax })),
    discount: Type.Optional(Discount),
    billing_address: Type.Optional(Address),
    payment_token: Type.String({ minLength: 1, maxLength: 200 }),
    message: Type.Optional(Type.String({ maxLength: 80 })),
  },
  strict,
);
export const CardPayment = Type.Object({ payment: Type.Object({ credit_card: CreditCard }, strict) }, strict);

export const ChargeCreate = Type.Object(
  {
    items: Type.Array(Item, { minItems: 1, maxItems: LIMITS.billingItemsMax }),
    shippings: Type.Optional(Type.Array(Shipping, { maxItems: LIMITS.billingShippingsMax })),
    metadata: Type.Optional(Metadata),
  },
  strict,
);
export const OneStepCreate = Type.Object(
  { ...ChargeCreate.properties, payment: CardPayment.properties.payment },
  strict,
);
export const RefundBody = Type.Union([Type.Object({ amount: Type.Optional(Cents) }, strict), Type.Null()]);
export const ChargeIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export type ItemInput = Static<typeof Item>;
export type ShippingInput = Static<typeof Shipping>;
export type MetadataInput = Static<typeof Metadata>;
export type CreditCardInput = Static<typeof CreditCard>;
export type ChargeCreateInput = Static<typeof ChargeCreate>;
export type OneStepInput = Static<typeof OneStepCreate>;

const Envelope = <T extends ReturnType<typeof Type.Object>>(data: T) => Type.Object({ code: Type.Integer(), data });
export const ChargeCreated = Envelope(
  Type.Object({
    charge_id: Type.Integer(),
    status: Type.String(),
    total: Type.Integer(),
    custom_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    checkout_url: Type.String(),
  }),
);
export const PaymentResult = Envelope(
  Type.Object({
    charge_id: Type.Integer(),
    status: Type.String(),
    total: Type.Integer(),
    installments: Type.Integer(),
    installment_value: Type.Integer(),
    payment: Type.String(),
    refusal: Type.Optional(Type.Object({ reason: Type.String(), retry: Type.Boolean() })),
  }),
);
export const ChargeDetail = Envelope(Type.Object({}, { additionalProperties: true }));
export const Done = Type.Object({ code: Type.Integer() });
export const RefundResult = Type.Object({ code: Type.Integer(), status: Type.String(), message: Type.String() });
