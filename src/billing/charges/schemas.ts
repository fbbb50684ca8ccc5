/** Card/billing charge bodies and views (spec: Card/billing charge resource). Amounts are integer cents. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { BankingBillet, BoletoFields } from '../boletos/schemas.ts';
import { Address, Cents, Customer, Discount, strict, Text } from '../shared/schemas.ts';

const Percent = Type.Integer({
  minimum: 1,
  maximum: LIMITS.billingPercentScale,
  description: 'hundredths of a percent: 10000 = 100 %',
});
const PayeeCode = Type.String({ pattern: '^[a-zA-Z0-9]{32}$' });

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

/** PUT …/metadata of a charge, carnet or subscription: the metadata, and whether to notify again afterwards. */
export const MetadataUpdate = Type.Object(
  {
    ...Metadata.properties,
    resend: Type.Optional(
      Type.Boolean({
        description:
          'true: the newest event is notified again after the change; false: not even to a new URL; absent: ' +
          'a new URL gets the newest event not yet queried.',
      }),
    ),
  },
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
/** One payment method: a card or a boleto (`banking_billet`, src/billing/boletos). */
export const AnyPayment = Type.Object(
  {
    payment: Type.Object(
      { credit_card: Type.Optional(CreditCard), banking_billet: Type.Optional(BankingBillet) },
      { ...strict, description: 'Exactly one of credit_card and banking_billet.' },
    ),
  },
  strict,
);

export const ChargeCreate = Type.Object(
  {
    items: Type.Array(Item, { minItems: 1, maxItems: LIMITS.billingItemsMax }),
    shippings: Type.Optional(Type.Array(Shipping, { maxItems: LIMITS.billingShippingsMax })),
    metadata: Type.Optional(Metadata),
  },
  strict,
);
export const OneStepCreate = Type.Object(
  { ...ChargeCreate.properties, payment: AnyPayment.properties.payment },
  strict,
);
export const RefundBody = Type.Union([Type.Object({ amount: Type.Optional(Cents) }, strict), Type.Null()]);
export const ChargeIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export type ItemInput = Static<typeof Item>;
export type ShippingInput = Static<typeof Shipping>;
export type MetadataInput = Static<typeof MetadataUpdate>;
export type CreditCardInput = Static<typeof CreditCard>;
export type AnyPaymentInput = Static<typeof AnyPayment>['payment'];
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
    installments: Type.Optional(Type.Integer()),
    installment_value: Type.Optional(Type.Integer()),
    payment: Type.String(),
    refusal: Type.Optional(Type.Object({ reason: Type.String(), retry: Type.Boolean() })),
    ...BoletoFields.properties,
  }),
);
export const ChargeDetail = Envelope(Type.Object({}, { additionalProperties: true }));
export const Done = Type.Object({ code: Type.Integer() });
export const RefundResult = Type.Object({ code: Type.Integer(), status: Type.String(), message: Type.String() });
