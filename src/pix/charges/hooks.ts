/**
 * The extension point where simulations attach to charge creation without the core knowing them: the
 * sandbox registers its fictitious payer here (src/sandbox/settlement.ts); production registers nothing,
 * and never loads the sandbox at all.
 */
import type { Sql } from '../../platform/db/database.ts';

export interface CreatedCharge {
  accountId: number;
  txid: string;
  amountCents: number;
}

export interface ChargeCreatedHook {
  /** Whether the hook acts on this charge; creation then opens a transaction for it. */
  appliesTo(charge: CreatedCharge): boolean;
  /** Runs inside the transaction that writes the charge: what it enqueues commits with the charge. */
  onCreated(sql: Sql, charge: CreatedCharge, now: Date): Promise<void>;
}

export async function runChargeCreatedHooks(
  sql: Sql,
  hooks: readonly ChargeCreatedHook[],
  charge: CreatedCharge,
  now: Date,
): Promise<void> {
  for (const hook of hooks) if (hook.appliesTo(charge)) await hook.onCreated(sql, charge, now);
}
