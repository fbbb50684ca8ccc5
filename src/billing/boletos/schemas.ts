/** Boleto bodies (`banking_billet`) and views: the shapes of the official SDK's JSDoc. Amounts are integer cents. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { Customer, Discount, strict, Text } from '../shared/schemas.ts';

const IsoDate = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

export const ConditionalDiscount = Type.Object(
  {
    type: Type.Union([Type.Literal('currency'), Type.Literal('percentage')]),
    value: Type.Integer({ minimum: 1 }),
    until_date: IsoDate,
  },
  strict,
);

export const Configurations = Type.Object(
  {
    days_to_write_off: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.boletoDaysToWriteOffMax })),
    fine: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: LIMITS.boletoFineMaxHundredths,
        description: 'hundredths of a percent of the amount, once after the due date: 200 = 2 %',
      }),
    ),
    interest: Type.Optional(
      Type.Union([
        Type.Integer({
          minimum: 0,
          maximum: LIMITS.boletoDailyInterestMaxThousandths,
          description: 'thousandths of a percent per calendar day late: 33 = 0.033 %',
        }),
        Type.Object(
          {
            value: Type.Integer({ minimum: 0, maximum: LIMITS.boletoMonthlyInterestMaxHundredths }),
            type: Type.Union([Type.Literal('monthly'), Type.Literal('daily')]),
          },
          {
            ...strict,
            description:
              'daily: thousandths of a percent per day; monthly: hundredths of a percent per 30 days, charged per day',
          },
        ),
      ]),
    ),
  },
  strict,
);

/** What a boleto is issued with (one-step, /pay, and each parcel of a carnê). */
const BoletoTerms = {
  customer: Customer,
  discount: Type.Optional(Discount),
  conditional_discount: Type.Optional(ConditionalDiscount),
  configurations: Type.Optional(Configurations),
  message: Type.Optional(Type.String({ maxLength: LIMITS.boletoMessageMaxChars })),
};
export const BankingBillet = Type.Object({ ...BoletoTerms, expire_at: IsoDate }, strict);
export type BankingBilletInput = Static<typeof BankingBillet>;

const Pix = Type.Object({ qrcode: Type.String(), qrcode_image: Type.String() });
/** What a boleto answer carries beside the charge's fields (all optional: card answers have none). */
export const BoletoFields = Type.Object({
  barcode: Type.Optional(Type.String({ description: 'The linha digitável, formatted as printed (Efí)' })),
  barcode_digits: Type.Optional(Type.String({ description: 'The 44-digit barcode the bars encode (pixd)' })),
  pix: Type.Optional(Pix),
  link: Type.Optional(Type.String()),
  billet_link: Type.Optional(Type.String()),
  pdf: Type.Optional(Type.Object({ charge: Type.String() })),
  expire_at: Type.Optional(Type.String()),
  configurations: Type.Optional(
    Type.Object({
      days_to_write_off: Type.Integer(),
      interest_type: Type.Optional(Type.String()),
      interest: Type.Optional(Type.Integer()),
      fine: Type.Optional(Type.Integer()),
    }),
  ),
});

export const UpdateBillet = Type.Object({ expire_at: IsoDate }, strict);
export const Email = Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) }, strict);
export const HistoryBody = Type.Object({ description: Text(255) }, strict);

const Cell = Type.Object(
  {
    align: Type.Optional(Type.String({ maxLength: 10 })),
    color: Type.Optional(Type.String({ maxLength: 20 })),
    style: Type.Optional(Type.String({ maxLength: 20 })),
    text: Type.String({ maxLength: LIMITS.boletoBalanceSheetCellMaxChars }),
    colspan: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
  },
  strict,
);
export const BalanceSheet = Type.Object(
  {
    title: Text(255),
    body: Type.Array(
      Type.Object(
        {
          header: Type.String({ maxLength: 255 }),
          tables: Type.Array(
            Type.Object(
              {
                rows: Type.Array(Type.Array(Cell, { maxItems: 10 }), { maxItems: LIMITS.boletoBalanceSheetRowsMax }),
              },
              strict,
            ),
            { maxItems: 10 },
          ),
        },
        strict,
      ),
      { minItems: 1, maxItems: 10 },
    ),
  },
  strict,
);
export type BalanceSheetInput = Static<typeof BalanceSheet>;

export const ChargeListQuery = Type.Object(
  {
    begin_date: IsoDate,
    end_date: IsoDate,
    charge_type: Type.Union([
      Type.Literal('billet'),
      Type.Literal('card'),
      Type.Literal('carnet'),
      Type.Literal('subscription'),
    ]),
    status: Type.Optional(Type.String({ maxLength: 20 })),
    date_of: Type.Optional(Type.Union([Type.Literal('creation'), Type.Literal('payment'), Type.Literal('expired')])),
    customer_document: Type.Optional(Type.String({ pattern: '^\\d{11}$|^\\d{14}$' })),
    custom_id: Type.Optional(Type.String({ maxLength: LIMITS.billingCustomIdMaxChars })),
    value: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.billingChargeListLimitMax })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  },
  strict,
);
export type ChargeListQueryInput = Static<typeof ChargeListQuery>;
export const ChargeList = Type.Object({
  code: Type.Integer(),
  data: Type.Array(Type.Object({}, { additionalProperties: true })),
});
/** A boleto's page: its link token, with `.pdf` or without (both answer the PDF). */
export const LinkParams = Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}(\\.pdf)?$' }) });
export const MailList = Type.Object({
  code: Type.Integer(),
  data: Type.Array(
    Type.Object({
      id: Type.Integer(),
      to: Type.String(),
      subject: Type.String(),
      body: Type.String(),
      reference: Type.String(),
      /** queued (SMTP still trying), sent, failed (docs/billing.md, "E-mails"). */
      status: Type.String(),
      /** SMTP attempts made; 0 in the sandbox's mailbox. */
      attempts: Type.Integer(),
      /** The last failed SMTP attempt's reason. */
      error: Type.Optional(Type.String()),
      created_at: Type.String(),
    }),
  ),
});
