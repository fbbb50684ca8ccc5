/**
 * Split configurations: create (id assigned), create-or-revise (caller's id), read a revision. The rules a
 * schema cannot express are checked here, and beneficiaries are resolved to accounts once, when the
 * revision is written. No HTTP here.
 */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { parseAmount } from '../../platform/money.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { STATIC_TXID_MAX_CHARS } from '../../platform/brcode.ts';
import { isUniqueViolation } from '../../platform/db/errors.ts';
import type { Caller } from '../shared/caller.ts';
import type { SplitConfigBody, SplitConfigRequest, SplitConfigView } from './schemas.ts';
import type { ShareTipo } from './shares.ts';
import {
  accountsByConta,
  findConfig,
  findRevision,
  insertConfig,
  txidUsedByAnotherConfig,
  writeRevision,
  type ConfigRow,
  type RevisionRow,
} from './store.ts';

export const CONFIG_INVALID = 'SplitConfigOperacaoInvalida';
export const SPLIT_QUERY_INVALID = 'SplitConsultaInvalida';
const ROOT = 'config.split';
const INVALID_DETAIL = 'A configuração de split não respeita o schema ou está semanticamente errada.';

export const configNotFound = (id: string, revisao?: number) =>
  notFound(
    revisao === undefined
      ? `Configuração de split ${id} não encontrada.`
      : `A configuração de split ${id} não possui a revisão ${revisao}.`,
    'SplitConfigNaoEncontrada',
  );

interface ResolvedShares {
  tipo: ShareTipo;
  shares: { accountId: number; valorHundredths: number }[];
}

/** Shares: one tipo for all, percentages adding up to exactly 100.00, every beneficiary paid something. */
function shareViolations(split: SplitConfigRequest['split']): Violation[] {
  const out: Violation[] = [];
  const tipo = split.minhaParte.tipo;
  const parts = [
    { at: `${ROOT}.minhaParte`, ...split.minhaParte },
    ...split.repasses.map((r, i) => ({ at: `${ROOT}.repasses.${i}`, ...r })),
  ];
  for (const [position, part] of parts.entries()) {
    // Mixed tipos have no single total to add up to; one configuration is either percentages or amounts.
    if (part.tipo !== tipo)
      out.push({
        property: `${part.at}.tipo`,
        reason: `todas as partes devem ter o mesmo tipo (${tipo}).`,
        value: part.tipo,
      });
    const hundredths = parseAmount(part.valor);
    if (position > 0 && hundredths === 0)
      out.push({ property: `${part.at}.valor`, reason: 'o repasse deve ser maior que zero.', value: part.valor });
    if (part.tipo === 'porcentagem' && hundredths > LIMITS.splitPercentTotalHundredths)
      out.push({ property: `${part.at}.valor`, reason: 'porcentagem acima de 100.00.', value: part.valor });
  }
  if (!out.length && tipo === 'porcentagem') {
    const totalHundredths = parts.reduce((acc, p) => acc + parseAmount(p.valor), 0);
    if (totalHundredths !== LIMITS.splitPercentTotalHundredths) {
      out.push({
        property: ROOT,
        reason: `as porcentagens somam ${(totalHundredths / 100).toFixed(2)}; devem somar exatamente 100.00.`,
      });
    }
  }
  return out;
}

/** Beneficiaries: existing accounts of this service (conta and document agree), never the receiver, each once. */
async function resolveBeneficiaries(
  sql: Sql,
  caller: Caller,
  repasses: SplitConfigRequest['split']['repasses'],
  out: Violation[],
): Promise<number[]> {
  const accounts = new Map(
    (
      await accountsByConta(
        sql,
        repasses.map((r) => r.favorecido.conta),
      )
    ).map((a) => [a.conta, a]),
  );
  const seen = new Set<number>();
  return repasses.map((r, i) => {
    const at = `${ROOT}.repasses.${i}.favorecido`;
    const { cpf, cnpj, conta } = r.favorecido;
    if (!cpf === !cnpj) {
      out.push({ property: at, reason: 'informe cpf ou cnpj (um deles).' });
      return 0;
    }
    const account = accounts.get(conta);
    if (!account || account.documento !== (cpf ?? cnpj)) {
      out.push({
        property: at,
        reason: 'o favorecido não é uma conta deste serviço (conta e documento não conferem).',
        value: conta,
      });
      return 0;
    }
    if (account.id === caller.accountId)
      out.push({ property: at, reason: 'não é possível repassar para a própria conta.', value: conta });
    else if (seen.has(account.id))
      out.push({ property: at, reason: 'favorecido repetido; cada conta aparece uma vez.', value: conta });
    seen.add(account.id);
    return account.id;
  });
}

async function resolve(sql: Sql, caller: Caller, request: SplitConfigRequest): Promise<ResolvedShares> {
  const violations: Violation[] = [];
  // Only immediate posting exists: the shares are credited in the payment's own transaction.
  if (!request.lancamento.imediato)
    violations.push({
      property: 'config.lancamento.imediato',
      reason: 'somente lançamento imediato (true) é suportado.',
      value: false,
    });
  violations.push(...shareViolations(request.split));
  const beneficiaries = await resolveBeneficiaries(sql, caller, request.split.repasses, violations);
  if (violations.length) throw invalid(CONFIG_INVALID, INVALID_DETAIL, violations);
  const { minhaParte, repasses } = request.split;
  return {
    tipo: minhaParte.tipo,
    shares: [
      { accountId: caller.accountId, valorHundredths: parseAmount(minhaParte.valor) },
      ...repasses.map((r, i) => ({ accountId: beneficiaries[i], valorHundredths: parseAmount(r.valor) })),
    ],
  };
}

function txidTaken(txid: string) {
  return invalid(CONFIG_INVALID, `O txid ${txid} já pertence a outra configuração de split.`, [
    { property: 'config.txid', reason: 'txid já utilizado.', value: txid },
  ]);
}

export function configView(
  config: Pick<ConfigRow, 'config_id' | 'status'>,
  revision: Pick<RevisionRow, 'revisao' | 'txid' | 'body'>,
): SplitConfigView {
  return {
    id: config.config_id,
    txid: revision.txid,
    status: config.status,
    revisao: revision.revisao,
    ...revision.body,
  };
}

/**
 * POST (no id: one is assigned) and PUT (caller's id). PUT of an existing id writes revision N+1; a
 * revision without txid keeps the configuration's txid.
 */
export async function writeConfig(
  sql: Sql,
  caller: Caller,
  id: string | undefined,
  request: SplitConfigRequest,
): Promise<SplitConfigView> {
  const configId = id ?? randomAlphanumeric(LIMITS.splitConfigIdAssignedChars);
  const resolved = await resolve(sql, caller, request);
  const { txid: requestedTxid, ...body } = request;
  if (requestedTxid && (await txidUsedByAnotherConfig(sql, caller.accountId, requestedTxid, configId)))
    throw txidTaken(requestedTxid);
  let config: ConfigRow | undefined;
  try {
    config = await insertConfig(
      sql,
      caller.accountId,
      configId,
      requestedTxid ?? randomAlphanumeric(STATIC_TXID_MAX_CHARS),
      caller.now,
    );
  } catch (error) {
    // A concurrent write claimed the same txid after the check above.
    if (isUniqueViolation(error) && requestedTxid) throw txidTaken(requestedTxid);
    throw error;
  }
  let revisao = 0;
  if (!config) {
    // 32 random alphanumerics do not collide; if they ever did, POST must not silently revise someone's configuration.
    if (id === undefined) throw new Error(`assigned split configuration id ${configId} already exists`);
    config = (await findConfig(sql, caller.accountId, configId, true))!;
    revisao = config.revisao + 1;
  }
  const write = {
    revisao,
    txid: requestedTxid ?? config.txid,
    tipo: resolved.tipo,
    body: body as SplitConfigBody,
    shares: resolved.shares,
  };
  await writeRevision(sql, config.id, write, caller.now);
  return configView(config, write);
}

/** The latest revision, or revision `revisao` as it was written. */
export async function readConfig(sql: Sql, caller: Caller, id: string, revisao?: number): Promise<SplitConfigView> {
  const config = await findConfig(sql, caller.accountId, id);
  if (!config) throw configNotFound(id);
  const revision = await findRevision(sql, config.id, revisao ?? config.revisao);
  if (!revision) throw configNotFound(id, revisao);
  return configView(config, revision);
}
