/**
 * Participant-side directory (docs/participants.md): the request and answer bodies of /dict and /v1/pix/confirm.
 * The schemas check shapes; the directory's rules (key formats, check digits, the owner's document) are in
 * keys.ts, so each broken rule is named as a violation of EntryInvalid.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { END_TO_END_ID_PATTERN } from '../../platform/institution.ts';

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });

/** Enumerations arrive lower-case (as the interface shows them) or upper-case; they are answered upper-cased. */
const caseless = (values: string[]) =>
  Type.Union(values.flatMap((v) => [Type.Literal(v), Type.Literal(v.toUpperCase())]));

export const KEY_TYPES = ['phone', 'email', 'cpf', 'cnpj', 'evp'];
export const ACCOUNT_TYPES = ['cacc', 'svgs', 'slry', 'tran'];
export const OWNER_TYPES = ['natural_person', 'legal_person'];
export const ENTRY_REASONS = ['user_requested', 'reconciliation'];
export const REFUND_REASONS = ['fraud', 'operational_flaw', 'refund_cancelled'];

export const EntryCreate = Type.Object(
  {
    entry: Type.Object(
      {
        account: Type.Object(
          {
            accountNumber: Type.String({ minLength: 1, maxLength: 20 }),
            accountType: caseless(ACCOUNT_TYPES),
            branch: Type.String({ minLength: 1, maxLength: 4 }),
            openingDate: Type.String({ format: 'date-time' }),
            participant: Type.String({ minLength: 1, maxLength: 8 }),
          },
          { additionalProperties: false },
        ),
        key: Type.String({ minLength: 1, maxLength: LIMITS.dictEmailKeyMaxChars }),
        keyType: caseless(KEY_TYPES),
        owner: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: LIMITS.dictOwnerNameMaxChars }),
            taxIdNumber: Type.String({ minLength: 1, maxLength: 14 }),
            type: caseless(OWNER_TYPES),
            tradeName: Type.Optional(Type.String({ maxLength: LIMITS.dictOwnerNameMaxChars })),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    reason: caseless(ENTRY_REASONS),
    requestId: Uuid,
  },
  { additionalProperties: false },
);
export type EntryCreate = Static<typeof EntryCreate>;

export const DictEntryView = Type.Object({
  key: Type.String(),
  keyType: Type.String(),
  account: Type.Object({
    accountNumber: Type.String(),
    accountType: Type.String(),
    branch: Type.String(),
    openingDate: Type.String(),
    participant: Type.String(),
  }),
  owner: Type.Object({
    name: Type.String(),
    taxIdNumber: Type.String(),
    type: Type.String(),
    tradeName: Type.Optional(Type.String()),
  }),
  creationDate: Type.String(),
  keyOwnershipDate: Type.String(),
});
export type DictEntryView = Static<typeof DictEntryView>;

const Envelope = { responseTime: Type.Number(), correlationId: Type.String() };

export const EntryAnswer = Type.Object({ ...Envelope, entry: DictEntryView });

export const RefundCreate = Type.Object(
  {
    refund: Type.Object(
      {
        refundAmount: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
        refundDetails: Type.String({ maxLength: LIMITS.dictRefundDetailsMaxChars }),
        refundReason: caseless(REFUND_REASONS),
        transactionId: Type.String({ pattern: END_TO_END_ID_PATTERN }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type RefundCreate = Static<typeof RefundCreate>;

export const RefundView = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  contestedParticipant: Type.String(),
  requestingParticipant: Type.String(),
  creationTime: Type.String(),
  lastModified: Type.String(),
  refundAmount: Type.Number(),
  refundDetails: Type.String(),
  refundReason: Type.String(),
  transactionId: Type.String(),
  /** Once closed: how the contested participant answered, and what was returned. */
  refundAnalysisResult: Type.Optional(Type.String()),
  refundedAmount: Type.Optional(Type.Number()),
});
export type RefundView = Static<typeof RefundView>;

export const RefundAnswer = Type.Object({ ...Envelope, refund: RefundView });

export const RefundClose = Type.Object(
  {
    result: Type.Union([
      Type.Literal('totally_accepted'),
      Type.Literal('partially_accepted'),
      Type.Literal('rejected'),
    ]),
    amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e12 })),
  },
  { additionalProperties: false },
);
export type RefundClose = Static<typeof RefundClose>;

export const ConfirmRequest = Type.Object(
  {
    pix: Type.Array(
      Type.Object(
        {
          endToEndId: Type.String({ minLength: 1, maxLength: 35 }),
          status: Type.Union([Type.Literal('ACSP'), Type.Literal('RJCT')]),
          error: Type.Optional(
            Type.Object(
              {
                code: Type.String({ minLength: 1, maxLength: 35 }),
                reason: Type.String({ minLength: 1, maxLength: LIMITS.pixConfirmErrorReasonMaxChars }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: LIMITS.pixConfirmItemsMax },
    ),
  },
  { additionalProperties: false },
);
export type ConfirmRequest = Static<typeof ConfirmRequest>;

/**
 * Per item: PROCESSED (decided and settled), WAITING (decided; the sender's settlement follows),
 * NOT_FOUND (no Pix waiting under this id for this participant), ALREADY_DECIDED (decided before, or timed out),
 * REFUSED (accepted, but the payment could no longer be credited: returned).
 */
export const ConfirmItemResult = Type.Object({
  endToEndId: Type.String(),
  status: Type.String(),
  result: Type.Union([
    Type.Literal('PROCESSED'),
    Type.Literal('WAITING'),
    Type.Literal('NOT_FOUND'),
    Type.Literal('ALREADY_DECIDED'),
    Type.Literal('REFUSED'),
  ]),
  detail: Type.Optional(Type.String()),
});
export type ConfirmItemResult = Static<typeof ConfirmItemResult>;

export const ConfirmAnswer = Type.Object({
  ...Envelope,
  status: Type.Union([Type.Literal('WAITING'), Type.Literal('PROCESSED')]),
  pix: Type.Array(ConfirmItemResult),
});
