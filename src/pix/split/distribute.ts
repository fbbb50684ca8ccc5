/**
 * The payment engine's split step, run inside the payment's transaction right after the receiver was
 * credited: divides what was received (shares.ts), posts one journal entry moving the beneficiaries'
 * shares out of the receiver's available balance, and records the division. A Pix so divided is refunded only
 * through the split refund (`splitRefundGuard`; ./refunds.ts), which takes each part back.
 *
 * Which configuration applies: for a charge, the revision its link pinned; for a Pix without a charge
 * (key or static QR code) that carries a txid, the latest revision of the configuration with that txid.
 */
import type { Sql } from '../../platform/db/database.ts';
import { ledgerCode, lockCustomers, post } from '../../platform/ledger/ledger.ts';
import { formatAmount } from '../../platform/money.ts';
import { PaymentRefused } from '../payments/refusal.ts';
import type { RefundGuard } from '../received/refund-guard.ts';
import type { ReceivedPixRow } from '../received/store.ts';
import { SplitExceedsAmount, SplitInvariantError, divide } from './shares.ts';
import {
  insertDistribution,
  sharesOf,
  splitForTxid,
  splitLinkedTo,
  wasDistributed,
  type ApplicableSplit,
  type ShareRow,
} from './store.ts';

/** The configuration a payment divides, read and its parties locked before the payment posts anything. */
export interface PreparedSplit {
  split: ApplicableSplit;
  positions: ShareRow[];
}

/**
 * The split a payment to `to` divides, if any, with the receiver's and every beneficiary's account locked
 * (`lockCustomers`: account rows, then their posted totals, ascending): the payment credits the receiver and the
 * split then moves shares to the beneficiaries, so taking those locks one posting at a time would take a
 * beneficiary's total after the receiver's, against the global order (docs/ledger.md, "Lock order") that a send
 * between the two follows.
 */
export async function prepareSplit(
  sql: Sql,
  to: { accountId: number; txid: string | null },
  charge: { id: number } | undefined,
): Promise<PreparedSplit | undefined> {
  const split = charge
    ? await splitLinkedTo(sql, charge.id)
    : to.txid
      ? await splitForTxid(sql, to.accountId, to.txid)
      : undefined;
  if (!split) return undefined;
  const positions = await sharesOf(sql, split.split_config_id, split.revisao);
  if (positions[0]?.account_id !== to.accountId)
    throw new SplitInvariantError(`configuration ${split.split_config_id} does not start with the receiver`);
  await lockCustomers(
    sql,
    positions.map((p) => p.account_id),
  );
  return { split, positions };
}

/** Divides a received Pix by its prepared split, in the payment's transaction (module comment). */
export async function distributeSplit(
  sql: Sql,
  received: ReceivedPixRow,
  prepared: PreparedSplit | undefined,
  now: Date,
): Promise<void> {
  if (!prepared) return;
  const { split, positions } = prepared;
  let amounts: number[];
  try {
    amounts = divide(received.amount_cents, {
      tipo: split.tipo,
      valoresHundredths: positions.map((p) => p.valor_hundredths),
    });
  } catch (error) {
    // Fixed shares were checked against the charge when linked, but a due charge's discount or a
    // payer-chosen amount can bring the Pix below them: refuse the Pix rather than divide it otherwise.
    if (error instanceof SplitExceedsAmount) {
      throw new PaymentRefused(
        'split_excede_valor',
        `As partes fixas do split (${formatAmount(error.fixedTotalCents)}) excedem o valor do Pix (${formatAmount(error.amountCents)}).`,
      );
    }
    throw error;
  }
  // Beneficiaries whose share rounds to zero get no line (the journal refuses zero lines) but keep their row below.
  const credits = amounts
    .slice(1)
    .flatMap((amountCents, i) =>
      amountCents > 0 ? [{ code: ledgerCode.available(positions[i + 1].account_id), amountCents }] : [],
    );
  const passedOnCents = credits.reduce((acc, c) => acc + c.amountCents, 0);
  const journalEntryId = passedOnCents
    ? await post(sql, {
        kind: 'split_repasse',
        reference: received.end_to_end_id,
        accountId: received.account_id,
        at: now,
        postings: [{ code: ledgerCode.available(received.account_id), amountCents: -passedOnCents }, ...credits],
      })
    : null;
  await insertDistribution(
    sql,
    {
      receivedPixId: received.id,
      split,
      journalEntryId,
      shares: positions.map((p, i) => ({ accountId: p.account_id, amountCents: amounts[i] })),
    },
    now,
  );
}

/** Spec: charges passed on through a split cannot be refunded as a whole Pix; the split refund takes the parts back. */
export const splitRefundGuard: RefundGuard = async (sql, receivedPixId) =>
  (await wasDistributed(sql, receivedPixId))
    ? 'Pix recebido com split de pagamento não pode ser devolvido por esta rota: use PUT /v2/gn/split/pix/:e2eid/devolucao/:id.'
    : undefined;
