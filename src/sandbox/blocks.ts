/** Sandbox: block part of the available balance (judicial or MED), so integrators see `bloqueios`. */
import type { Sql } from '../platform/db/database.ts';
import { invalid } from '../platform/errors.ts';
import { balanceCents, ledgerCode, lockCustomer, transfer, type BlockKind } from '../platform/ledger/ledger.ts';
import { formatAmount } from '../platform/money.ts';
import { randomUUID } from '../platform/ids.ts';

export async function blockBalance(
  sql: Sql,
  accountId: number,
  kind: BlockKind,
  amountCents: number,
  now: Date,
): Promise<void> {
  await lockCustomer(sql, accountId);
  const available = await balanceCents(sql, ledgerCode.available(accountId));
  if (amountCents <= 0 || amountCents > available) {
    throw invalid(
      'BloqueioInvalido',
      `Só é possível bloquear de 0.01 até o saldo disponível (${formatAmount(available)}).`,
      [{ property: 'valor', reason: 'fora do saldo disponível.' }],
    );
  }
  await transfer(sql, {
    kind: `bloqueio_${kind}`,
    reference: randomUUID(),
    accountId,
    at: now,
    from: ledgerCode.available(accountId),
    to: ledgerCode.blocked(accountId, kind),
    amountCents,
  });
}
