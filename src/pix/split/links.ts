/**
 * Linking split configurations to charges (`cob` and `cobv`), and reading a charge with its link. No HTTP here.
 * A link pins the configuration revision that is current when linking: that revision is the one checked
 * against the charge, so it is the one the payment divides by. Linking again moves it to the latest revision.
 */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound, type ApiError } from '../../platform/errors.ts';
import { formatAmount } from '../../platform/money.ts';
import { isValidCpf } from '../../platform/documents.ts';
import { findAccount } from '../../accounts/store.ts';
import { findCharge, newChargeVersion } from '../charges/store.ts';
import type { TipoCob } from '../loc/store.ts';
import { COB, readCob } from '../cob/service.ts';
import { COBV, readCobV } from '../cobv/service.ts';
import type { Caller } from '../shared/caller.ts';
import type { ConfigRef } from './schemas.ts';
import { configNotFound } from './service.ts';
import { minimumDivisibleCents } from './shares.ts';
import { deleteLink, findConfig, findRevision, linkedConfigOf, sharesOf, upsertLink } from './store.ts';

export const LINK_INVALID = 'SplitVinculoInvalido';

const chargeNotFound: Record<TipoCob, (txid: string) => ApiError> = { cob: COB.notFound, cobv: COBV.notFound };

async function lockCharge(sql: Sql, caller: Caller, kind: TipoCob, txid: string) {
  // Only the payer-chooses-amount flag is read from the body (cob valor.modalidadeAlteracao; cobv has none).
  const charge = await findCharge<{ valor: { modalidadeAlteracao?: number } }>(sql, caller.accountId, kind, txid, true);
  if (!charge) throw chargeNotFound[kind](txid);
  return charge;
}

export async function linkConfig(
  sql: Sql,
  caller: Caller,
  kind: TipoCob,
  txid: string,
  configId: string,
): Promise<void> {
  // The charge row lock orders this link against a concurrent payment, which takes the same lock.
  const charge = await lockCharge(sql, caller, kind, txid);
  if (charge.status !== 'ATIVA') {
    throw invalid(LINK_INVALID, `Somente cobranças ATIVA podem ser vinculadas a um split (status ${charge.status}).`, [
      { property: 'txid', reason: 'cobrança não está ATIVA.', value: txid },
    ]);
  }
  const config = await findConfig(sql, caller.accountId, configId);
  if (!config) throw configNotFound(configId);
  const revision = (await findRevision(sql, config.id, config.revisao))!;
  // Fixed shares need an amount to fit in. The payer-chooses-amount charge has none yet: payment checks it.
  const payerChoosesAmount = charge.body.valor.modalidadeAlteracao === 1;
  const fixedTotalCents = minimumDivisibleCents({
    tipo: revision.tipo,
    valoresHundredths: (await sharesOf(sql, config.id, config.revisao)).map((s) => s.valor_hundredths),
  });
  if (!payerChoosesAmount && fixedTotalCents > charge.amount_cents) {
    throw invalid(
      LINK_INVALID,
      `As partes fixas da configuração somam ${formatAmount(fixedTotalCents)}, acima do valor da cobrança (${formatAmount(charge.amount_cents)}).`,
      [{ property: 'splitConfigId', reason: 'partes fixas acima do valor da cobrança.', value: configId }],
    );
  }
  // A payment that read the charge before this link commits must not pay it undivided (its write pays only
  // the version it read); the row lock alone orders this against the locked path only.
  await newChargeVersion(sql, charge.id);
  await upsertLink(sql, charge.id, config.id, config.revisao, caller.now);
}

/** Removes the link of a charge not yet paid; once paid, the division has happened and stays. */
export async function unlinkConfig(sql: Sql, caller: Caller, kind: TipoCob, txid: string): Promise<void> {
  const charge = await lockCharge(sql, caller, kind, txid);
  if (charge.status === 'CONCLUIDA') {
    throw invalid(LINK_INVALID, 'A cobrança já foi paga e o valor já foi dividido; o vínculo não pode ser desfeito.', [
      { property: 'txid', reason: 'cobrança CONCLUIDA.', value: txid },
    ]);
  }
  if (!(await deleteLink(sql, charge.id)))
    throw notFound(`A cobrança ${txid} não possui configuração de split vinculada.`, 'SplitVinculoNaoEncontrado');
}

async function configRefOf(sql: Sql, caller: Caller, kind: TipoCob, txid: string): Promise<{ config?: ConfigRef }> {
  const linked = await linkedConfigOf(sql, caller.accountId, kind, txid);
  if (!linked) return {};
  return {
    config: {
      id: linked.config_id,
      status: linked.status,
      revisao: linked.revisao,
      ...(linked.body.descricao !== undefined && { descricao: linked.body.descricao }),
    },
  };
}

/** GET /v2/gn/split/cob/:txid: the charge as GET /v2/cob reads it, plus `config` when one is linked. */
export async function readSplitCob(sql: Sql, caller: Caller, txid: string) {
  const view = await readCob(sql, caller, txid);
  return { ...view, ...(await configRefOf(sql, caller, 'cob', txid)) };
}

/** GET /v2/gn/split/cobv/:txid: the due charge (its `recebedor` included), plus `config` when one is linked. */
export async function readSplitCobV(sql: Sql, caller: Caller, txid: string) {
  const view = await readCobV(sql, caller, txid);
  return { ...view, ...(await configRefOf(sql, caller, 'cobv', txid)) };
}
