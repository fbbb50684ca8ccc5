/** Carnê bodies and views (the official SDK's createCarnet, detailCarnet and parcel calls). */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { Customer, Discount, strict } from '../shared/schemas.ts';
import { Item, Metadata } from '../charges/schemas.ts';
import { BoletoFields, ConditionalDiscount, Configurations } from '../boletos/schemas.ts';

const IsoDate = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

export const CarnetCreate = Type.Object(
  {
    items: Type.Array(Item, { minItems: 1, maxItems: LIMITS.billingItemsMax }),
    customer: Customer,
    expire_at: IsoDate,
    repeats: Type.Integer({ minimum: 1, maximum: LIMITS.billingCarnetRepeatsMax }),
    split_items: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
    configurations: Type.Optional(Configurations),
    message: Type.Optional(Type.String({ maxLength: LIMITS.boletoMessageMaxChars })),
    discount: Type.Optional(Discount),
    conditional_discount: Type.Optional(ConditionalDiscount),
  },
  strict,
);
export type CarnetCreateInput = Static<typeof CarnetCreate>;

export const CarnetIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
export const ParcelParams = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  parcel: Type.Integer({ minimum: 1, maximum: LIMITS.billingCarnetRepeatsMax }),
});
export const ParcelsUpdate = Type.Object(
  {
    parcels: Type.Array(
      Type.Object(
        { parcel: Type.Integer({ minimum: 1, maximum: LIMITS.billingCarnetRepeatsMax }), expire_at: IsoDate },
        strict,
      ),
      { minItems: 1, maxItems: LIMITS.billingCarnetRepeatsMax },
    ),
  },
  strict,
);

const Parcel = Type.Object({
  charge_id: Type.Integer(),
  parcel: Type.Integer(),
  status: Type.String(),
  value: Type.Integer(),
  url: Type.String(),
  parcel_link: Type.String(),
  ...BoletoFields.properties,
});
const CarnetBase = {
  carnet_id: Type.Integer(),
  status: Type.String(),
  cover: Type.String(),
  link: Type.String(),
  carnet_link: Type.String(),
  pdf: Type.Object({ carnet: Type.String(), cover: Type.String() }),
  charges: Type.Array(Parcel),
};
export const CarnetCreated = Type.Object({ code: Type.Integer(), data: Type.Object(CarnetBase) });
export const CarnetDetail = Type.Object({
  code: Type.Integer(),
  data: Type.Object({
    ...CarnetBase,
    repeats: Type.Integer(),
    value: Type.Integer(),
    custom_id: Type.Union([Type.String(), Type.Null()]),
    notification_url: Type.Union([Type.String(), Type.Null()]),
    split_items: Type.Boolean(),
    created_at: Type.String(),
    history: Type.Array(Type.Object({ message: Type.String(), created_at: Type.String() })),
  }),
});
