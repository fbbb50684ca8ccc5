/**
 * POST /v2/charge/card (SDK createChargeCard): a card charge created and paid in one call, the customer and card
 * at the top level. `tds_info` (3-D Secure) is accepted and not used: the sandbox issuer never asks for a
 * challenge. Marketplace `repasses` are not accepted here (use /v1/charge/one-step).
 */
import { Type } from '@sinclair/typebox';
import { ChargeCreate, CreditCard, Item } from '../charges/schemas.ts';
import { LIMITS } from '../../platform/limits.ts';

const strict = { additionalProperties: false } as const;
const { marketplace: _marketplace, ...itemFields } = Item.properties;

export const CardChargeV2 = Type.Object(
  {
    items: Type.Array(Type.Object(itemFields, strict), { minItems: 1, maxItems: LIMITS.billingItemsMax }),
    shippings: ChargeCreate.properties.shippings,
    metadata: ChargeCreate.properties.metadata,
    ...CreditCard.properties,
    tds_info: Type.Optional(
      Type.Object(
        {
          tds_identifier: Type.String({ maxLength: 255 }),
          challenge_callback_url: Type.String({ maxLength: LIMITS.billingNotificationUrlMaxChars }),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const CardChargeV2Result = Type.Object({
  charge_id: Type.Integer(),
  status: Type.String(),
  installments: Type.Integer(),
  installment_value: Type.Integer(),
  total: Type.Integer(),
  refusal: Type.Optional(Type.Object({ reason: Type.String(), retry: Type.Boolean() })),
});
