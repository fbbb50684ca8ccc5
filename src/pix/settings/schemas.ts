/**
 * Account settings (Efí PUT/GET /v2/gn/config). Required flags follow the official SDK's types: `pix.
 * receberSemChave` always; per key `recebimento.txidObrigatorio` and `recebimento.qrCodeEstatico`; the
 * rest optional (absent means the default, docs/keys-settings.md). Unknown properties are refused.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';

const strict = { additionalProperties: false } as const;

/** A pattern, so a wrong value is one violation naming the property (a union of literals would give three). */
const TipoPessoa = Type.String({
  pattern: '^(PF|PJ)$',
  description: 'PF refuses payers identified by CPF, PJ payers identified by CNPJ.',
});

const Recebimento = Type.Object(
  {
    txidObrigatorio: Type.Boolean({ description: 'Refuse Pix to this key that carry no txid.' }),
    recusarTipoPessoa: Type.Optional(TipoPessoa),
    qrCodeEstatico: Type.Object(
      { recusarTodos: Type.Boolean({ description: 'Refuse every payment of a static QR code of this key.' }) },
      strict,
    ),
    webhook: Type.Optional(
      Type.Object(
        {
          notificacao: Type.Optional(Type.Object({ tarifa: Type.Boolean(), pagador: Type.Boolean() }, strict)),
          notificar: Type.Optional(Type.Object({ pixSemTxid: Type.Boolean() }, strict)),
        },
        strict,
      ),
    ),
  },
  strict,
);

const Envio = Type.Object(
  {
    webhook: Type.Object(
      { notificacao: Type.Object({ tarifa: Type.Boolean(), favorecido: Type.Boolean() }, strict) },
      strict,
    ),
  },
  strict,
);

const KeySettings = Type.Object({ recebimento: Recebimento, envio: Type.Optional(Envio) }, strict);

/** No account holds more keys than the larger DICT limit, so more entries cannot all be the caller's. */
const Chaves = Type.Record(Type.String(), KeySettings, {
  maxProperties: LIMITS.pixKeysMaxPerAccountLegalPerson,
  propertyNames: { minLength: 1, maxLength: LIMITS.chaveMaxChars },
  description: 'Settings per key of the account. Keys not listed have the defaults.',
});

/**
 * The account holder's address (a pixd extension of the provider's settings): due charges name their receiver
 * with it (Bacen DadosRecebedor requires logradouro, cidade, uf and cep). The city is also the QR codes' merchant
 * city. Optional on PUT (absent: unchanged); every read shows it.
 */
const Endereco = Type.Object(
  {
    logradouro: Type.String({ minLength: 1, maxLength: LIMITS.devedorLogradouroMaxChars }),
    cidade: Type.String({ minLength: 1, maxLength: LIMITS.devedorCidadeMaxChars }),
    uf: Type.String({ pattern: '^[A-Z]{2}$', description: 'State code, two capital letters.' }),
    cep: Type.String({ pattern: '^\\d{8}$', description: 'Postal code, eight digits.' }),
  },
  strict,
);

export const SettingsBody = Type.Object(
  {
    endereco: Type.Optional(Endereco),
    pix: Type.Object(
      {
        receberSemChave: Type.Boolean({ description: 'true: also receive Pix by bank data; false: only by key.' }),
        chaves: Type.Optional(Chaves),
      },
      strict,
    ),
  },
  strict,
);
export type SettingsBody = Static<typeof SettingsBody>;
export type KeySettingsBody = Static<typeof KeySettings>;
