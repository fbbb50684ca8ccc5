/**
 * Batches of due charges (`lotecobv`): request and response shapes after Bacen LoteCobVBody,
 * LoteCobVBodyRevisado, LoteCobVConsultado and LotesCobVConsultados.
 *
 * The request schemas check the envelope only: the array bounds and each item's txid, which names the
 * item. The rest of an item is checked item by item by the batch job (`ItemCreate`, `ItemPatch`), so one
 * bad item is NEGADA with its problem (as in Bacen's example) instead of failing the batch.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';
import { CobVCreate, CobVPatch } from '../cobv/schemas.ts';
import { PaginationQuery, Cpf, Cnpj, Timestamp, Txid, pageEnvelope } from '../shared/schemas.ts';

const strict = { additionalProperties: false } as const;

/** Path id: an integer written in digits (Bacen LoteCobVConsultado.id is an int64). */
export const LoteParams = Type.Object({
  id: Type.String({
    pattern: `^[0-9]{1,${LIMITS.lotecobvIdMaxDigits}}$`,
    description: 'Batch id, chosen by the caller: an integer of up to 15 digits.',
  }),
});

const Descricao = Type.String({
  maxLength: LIMITS.lotecobvDescricaoMaxChars,
  description: 'Description of the batch.',
});

/** An item as the envelope sees it: a txid plus fields the job checks (see the module comment). */
const itemEnvelope = (description: string) => Type.Object({ txid: Txid }, { additionalProperties: true, description });
const items = (description: string, minItems: number) =>
  Type.Array(itemEnvelope(description), { minItems, maxItems: LIMITS.lotecobvItemsMax });

export const LotePut = Type.Object(
  {
    descricao: Descricao,
    cobsv: items(
      'A due-charge creation request as PUT /v2/cobv/:txid takes it, plus its txid. Checked by the batch job: an invalid item is NEGADA.',
      LIMITS.lotecobvItemsMin,
    ),
  },
  strict,
);
export type LotePut = Static<typeof LotePut>;

export const LotePatch = Type.Object(
  {
    descricao: Type.Optional(Descricao),
    cobsv: Type.Optional(
      items(
        'A revision as PATCH /v2/cobv/:txid takes it, plus its txid. Checked by the batch job: an invalid item is NEGADA.',
        1,
      ),
    ),
  },
  { ...strict, minProperties: 1 },
);
export type LotePatch = Static<typeof LotePatch>;

/** What the job checks each item against: the due-charge schemas, with the txid. */
export const ItemCreate = Type.Object({ txid: Txid, ...CobVCreate.properties }, strict);
export type ItemCreate = Static<typeof ItemCreate>;
export const ItemPatch = Type.Object({ txid: Txid, ...CobVPatch.properties }, strict);
export type ItemPatch = Static<typeof ItemPatch>;

/** Bacen Problema, as a refused item carries it. */
export const Problema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  violacoes: Type.Optional(
    Type.Array(Type.Object({ razao: Type.String(), propriedade: Type.String(), valor: Type.Optional(Type.String()) })),
  ),
});
export type Problema = Static<typeof Problema>;

export const ItemStatus = Type.Union([
  Type.Literal('EM_PROCESSAMENTO'),
  Type.Literal('CRIADA'),
  Type.Literal('NEGADA'),
]);
export type ItemStatus = Static<typeof ItemStatus>;

export const LoteView = Type.Object({
  id: Type.Integer(),
  descricao: Type.String(),
  criacao: Timestamp,
  cobsv: Type.Array(
    Type.Object({
      criacao: Type.Optional(Timestamp),
      txid: Type.String(),
      status: ItemStatus,
      problema: Type.Optional(Problema),
    }),
  ),
});
export type LoteView = Static<typeof LoteView>;

export const LoteListQuery = Type.Object(
  {
    inicio: Timestamp,
    fim: Timestamp,
    // Each filter keeps the batches with at least one item that matches (docs/lotecobv.md).
    cpf: Type.Optional(Cpf),
    cnpj: Type.Optional(Cnpj),
    status: Type.Optional(ItemStatus),
    ...PaginationQuery,
    'paginacao.itensPorPagina': Type.Optional(
      Type.Integer({ minimum: 1, maximum: LIMITS.lotecobvPageSizeMax, default: LIMITS.pageSizeDefault }),
    ),
  },
  strict,
);
export type LoteListQuery = Static<typeof LoteListQuery>;

export const LoteList = pageEnvelope('lotes', LoteView);
