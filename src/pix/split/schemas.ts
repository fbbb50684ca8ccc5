/** Payment split (Efí /v2/gn/split): configuration request and response shapes, and the split charge reads. */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { AMOUNT_PATTERN } from '../../platform/money.ts';
import { STATIC_TXID_MAX_CHARS } from '../../platform/brcode.ts';
import { CobView } from '../cob/schemas.ts';
import { CobVView } from '../cobv/schemas.ts';
import { Cnpj, Cpf, Txid } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

export const SplitConfigId = Type.String({
  pattern: `^[a-zA-Z0-9]{1,${LIMITS.splitConfigIdMaxChars}}$`,
  description: `Configuration id: 1 to ${LIMITS.splitConfigIdMaxChars} letters and digits.`,
});

/** The configuration's own txid: what a static QR code carries (BR code ID 62-05, at most 25 characters). */
export const ConfigTxid = Type.String({
  pattern: `^[a-zA-Z0-9]{1,${STATIC_TXID_MAX_CHARS}}$`,
  description:
    'Pix received by key or static QR code with this txid are split by this configuration. Assigned when not given.',
});

const Tipo = Type.Union([Type.Literal('porcentagem'), Type.Literal('fixo')], {
  description: 'porcentagem: valor is a percentage; fixo: valor is an amount.',
});
const DivisaoTarifa = Type.Literal('assumir_total', {
  description: 'The receiver bears the whole fee (the only value accepted).',
});
const Valor = Type.String({
  pattern: AMOUNT_PATTERN,
  description: 'Percentage ("15.00") or amount ("5.00") with two decimals, per tipo.',
});

const Parte = Type.Object({ tipo: Tipo, valor: Valor }, strict);
const Favorecido = Type.Object(
  {
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    conta: Type.String({
      pattern: `^\\d{1,${LIMITS.splitContaMaxChars}}$`,
      description: 'Account number at this service.',
    }),
  },
  strict,
);
const Repasse = Type.Object({ tipo: Tipo, valor: Valor, favorecido: Favorecido }, strict);

export const SplitConfigRequest = Type.Object(
  {
    descricao: Type.Optional(Type.String({ maxLength: LIMITS.splitDescricaoMaxChars })),
    txid: Type.Optional(ConfigTxid),
    lancamento: Type.Object({ imediato: Type.Boolean() }, strict),
    split: Type.Object(
      {
        divisaoTarifa: DivisaoTarifa,
        minhaParte: Parte,
        repasses: Type.Array(Repasse, { minItems: 1, maxItems: LIMITS.splitRepassesMaxItems }),
      },
      strict,
    ),
  },
  strict,
);
export type SplitConfigRequest = Static<typeof SplitConfigRequest>;
/** What each revision stores and shows: the request without txid (kept beside it). */
export type SplitConfigBody = Omit<SplitConfigRequest, 'txid'>;

const ParteView = Type.Object({ tipo: Type.String(), valor: Type.String() });

export const SplitConfigView = Type.Object({
  id: Type.String(),
  txid: Type.String(),
  status: Type.Literal('ATIVA'),
  revisao: Type.Integer(),
  descricao: Type.Optional(Type.String()),
  lancamento: Type.Object({ imediato: Type.Boolean() }),
  split: Type.Object({
    divisaoTarifa: Type.String(),
    minhaParte: ParteView,
    repasses: Type.Array(
      Type.Object({
        ...ParteView.properties,
        favorecido: Type.Object({
          cpf: Type.Optional(Type.String()),
          cnpj: Type.Optional(Type.String()),
          conta: Type.String(),
        }),
      }),
    ),
  }),
});
export type SplitConfigView = Static<typeof SplitConfigView>;

export const ConfigParams = Type.Object({ id: SplitConfigId });
export const LinkParams = Type.Object({ txid: Txid, splitConfigId: SplitConfigId });

/** `config` in a charge read through the split endpoints: the linked configuration, at the revision linked. */
export const ConfigRef = Type.Object({
  id: Type.String(),
  status: Type.String(),
  revisao: Type.Integer(),
  descricao: Type.Optional(Type.String()),
});
export type ConfigRef = Static<typeof ConfigRef>;

export const SplitCobView = Type.Object({ ...CobView.properties, config: Type.Optional(ConfigRef) });
/** CobVView already names the receiver (`recebedor`, with its address). */
export const SplitCobVView = Type.Object({ ...CobVView.properties, config: Type.Optional(ConfigRef) });
