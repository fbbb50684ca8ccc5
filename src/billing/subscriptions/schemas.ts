/** Subscriptions to plans (SDK: createSubscription, createOneStepSubscription, detailSubscription, …). */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { ChargeCreate, CreditCard, Item, Metadata, MetadataUpdate, Shipping } from '../charges/schemas.ts';
import { LinkSettings } from '../links/schemas.ts';
import { BankingBillet } from '../boletos/schemas.ts';

const strict = { additionalProperties: false } as const;

export const SubscriptionCreate = ChargeCreate;
export const SubscriptionPayment = Type.Object(
  {
    payment: Type.Object(
      {
        // Exactly one of the two (checked by the service).
        credit_card: Type.Optional(
          Type.Object(
            { ...CreditCard.properties, trial_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })) },
            strict,
          ),
        ),
        banking_billet: Type.Optional(BankingBillet),
      },
      strict,
    ),
  },
  strict,
);
export const OneStepSubscription = Type.Object(
  { ...ChargeCreate.properties, payment: SubscriptionPayment.properties.payment },
  strict,
);
export const SubscriptionLink = Type.Object({ ...ChargeCreate.properties, settings: LinkSettings }, strict);
export const SubscriptionLinkAnswer = Type.Object({
  code: Type.Integer(),
  data: Type.Object({
    subscription_id: Type.Integer(),
    status: Type.String(),
    custom_id: Type.Union([Type.String(), Type.Null()]),
    charge: Type.Object({ id: Type.Integer(), status: Type.String(), total: Type.Integer(), parcel: Type.Integer() }),
    payment_url: Type.String(),
    payment_method: Type.String(),
    conditional_discount_date: Type.Union([Type.String(), Type.Null()]),
    request_delivery_address: Type.Boolean(),
    expire_at: Type.String(),
    created_at: Type.String(),
  }),
});
export const SubscriptionUpdate = Type.Object(
  {
    plan_id: Type.Optional(Type.Integer({ minimum: 1 })),
    customer: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
          phone_number: Type.Optional(Type.String({ pattern: '^\\d{10,11}$' })),
        },
        strict,
      ),
    ),
    items: Type.Optional(Type.Array(Item, { minItems: 1, maxItems: LIMITS.billingItemsMax })),
    shippings: Type.Optional(Type.Array(Shipping, { maxItems: LIMITS.billingShippingsMax })),
  },
  strict,
);
export const SubscriptionMetadata = MetadataUpdate;
export const SubscriptionHistoryEntry = Type.Object(
  { description: Type.String({ minLength: 1, maxLength: LIMITS.billingSubscriptionHistoryMaxChars }) },
  strict,
);
export const SubscriptionIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);
const ChargeRef = Type.Object({
  id: Type.Integer(),
  status: Type.String(),
  parcel: Type.Integer(),
  total: Type.Integer(),
});
const PlanRef = Type.Object({ id: Type.Integer(), interval: Type.Integer(), repeats: Nullable(Type.Integer()) });
const Envelope = <T extends ReturnType<typeof Type.Object>>(data: T) => Type.Object({ code: Type.Integer(), data });

export const SubscriptionCreated = Envelope(
  Type.Object({
    subscription_id: Type.Integer(),
    status: Type.String(),
    custom_id: Nullable(Type.String()),
    charges: Type.Array(
      Type.Object({ charge_id: Type.Integer(), status: Type.String(), total: Type.Integer(), parcel: Type.Integer() }),
    ),
    created_at: Type.String(),
  }),
);
export const SubscriptionPaid = Envelope(
  Type.Object({
    subscription_id: Type.Integer(),
    status: Type.String(),
    plan: PlanRef,
    charge: ChargeRef,
    first_execution: Type.String(),
    total: Type.Integer(),
    payment: Type.String(),
    // A boleto subscription: its first boleto.
    barcode: Type.Optional(Type.String()),
    link: Type.Optional(Type.String()),
    billet_link: Type.Optional(Type.String()),
    pdf: Type.Optional(Type.Object({ charge: Type.String() })),
    expire_at: Type.Optional(Type.String()),
  }),
);
export const SubscriptionDetail = Envelope(
  Type.Object({
    subscription_id: Type.Integer(),
    value: Type.Integer(),
    status: Type.String(),
    custom_id: Nullable(Type.String()),
    notification_url: Nullable(Type.String()),
    payment_method: Nullable(Type.String()),
    next_execution: Nullable(Type.String()),
    next_expire_at: Nullable(Type.String()),
    plan: Type.Object({
      plan_id: Type.Integer(),
      name: Type.String(),
      interval: Type.Integer(),
      repeats: Nullable(Type.Integer()),
    }),
    occurrences: Type.Integer(),
    created_at: Type.String(),
    history: Type.Array(
      Type.Object({
        charge_id: Type.Optional(Type.Integer()),
        parcel: Type.Optional(Type.Integer()),
        status: Type.String(),
        message: Type.Optional(Type.String()),
        created_at: Type.String(),
      }),
    ),
  }),
);

export const SubscriptionUpdated = Envelope(
  Type.Composite([
    Type.Omit(SubscriptionDetail.properties.data, ['history']),
    Type.Object({ customer: Type.Object({ email: Type.String(), phone_number: Type.String() }) }),
  ]),
);

export type SubscriptionCreateInput = Static<typeof SubscriptionCreate>;
export type SubscriptionLinkInput = Static<typeof SubscriptionLink>;
export type SubscriptionPaymentInput = Static<typeof SubscriptionPayment>['payment'];
export type OneStepSubscriptionInput = Static<typeof OneStepSubscription>;
export type SubscriptionUpdateInput = Static<typeof SubscriptionUpdate>;
export type SubscriptionMetadataInput = Static<typeof SubscriptionMetadata>;
