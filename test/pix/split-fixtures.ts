/** Shared pieces of the split tests: beneficiaries, configuration bodies, a seeded generator, ledger reads. */
import type { Party, TestService } from '../helpers/service.ts';
import type { Sql } from '../../src/platform/db/database.ts';

/** A sub-account usable as a split beneficiary (the sandbox rule): its party plus its documento and conta. */
export interface Beneficiary {
  party: Party;
  documento: string;
  conta: string;
}

export async function newBeneficiary(
  svc: TestService,
  input: Parameters<TestService['newParty']>[0] = {},
): Promise<Beneficiary> {
  const party = await svc.newParty(input);
  const { rows } = await svc.service.ctx.db.query<{ documento: string; conta: string }>(
    'select documento, conta from accounts where id = $1',
    [party.accountId],
  );
  return { party, ...rows[0] };
}

export const favorecido = (
  b: Pick<Beneficiary, 'documento' | 'conta'>,
): { cpf?: string; cnpj?: string; conta: string } =>
  b.documento.length === 11 ? { cpf: b.documento, conta: b.conta } : { cnpj: b.documento, conta: b.conta };

export type Tipo = 'porcentagem' | 'fixo';

/** A configuration body: the receiver's share, then [beneficiary, valor] pairs, all of one tipo. */
export function configBody(
  tipo: Tipo,
  minhaParte: string,
  repasses: [Beneficiary, string][],
  extra: Record<string, unknown> = {},
) {
  return {
    descricao: 'Split de teste',
    lancamento: { imediato: true },
    split: {
      divisaoTarifa: 'assumir_total',
      minhaParte: { tipo, valor: minhaParte },
      repasses: repasses.map(([b, valor]) => ({ tipo, valor, favorecido: favorecido(b) })),
    },
    ...extra,
  };
}

/** Seeded PRNG (mulberry32): the same seed gives the same cases, so a failure can be replayed. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** Integer in [min, max]. */
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  /** A copy of `items` in random order (Fisher–Yates). */
  const shuffle = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = int(0, i);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };
  return { next, int, shuffle };
}

/**
 * `count` percentages in hundredths adding up to exactly 10000 (100.00 %): cut [0, 10000] at random
 * points. `positiveFrom` makes every part from that index on at least 0.01 % (beneficiaries must get some).
 */
export function randomPercentages(rng: ReturnType<typeof seeded>, count: number, positiveFrom = 1): number[] {
  const positive = count - positiveFrom;
  const cuts = Array.from({ length: count - 1 }, () => rng.int(0, 10000 - positive)).sort((a, b) => a - b);
  const parts = [...cuts, 10000 - positive].map((cut, i) => cut - (i ? cuts[i - 1] : 0));
  // Reserve one hundredth for each part that must be positive.
  return parts.map((p, i) => p + (i >= positiveFrom ? 1 : 0));
}

export const hundredthsText = (hundredths: number) =>
  `${Math.trunc(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;

/** The shares recorded for a received Pix, by position (0 is the receiver). */
export async function distributionOf(
  sql: Sql,
  endToEndId: string,
): Promise<{ accountId: number; amountCents: number }[]> {
  const { rows } = await sql.query<{ account_id: number; amount_cents: number }>(
    `select s.account_id, s.amount_cents from split_distribution_shares s
       join split_distributions d on d.id = s.distribution_id join received_pix p on p.id = d.received_pix_id
     where p.end_to_end_id = $1 order by s.position`,
    [endToEndId],
  );
  return rows.map((r) => ({ accountId: r.account_id, amountCents: r.amount_cents }));
}
