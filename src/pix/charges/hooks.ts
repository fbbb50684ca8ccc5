/**
 * The extension point where simulations attach to charge creation without the core knowing them: the
 * sandbox registers its fictitious payer here (src/sandbox/settlement.ts); production registers nothing,
 * and never loads the sandbox at all.
 */
import type { Sql } from '../../platform/db/database.ts';
import type { ChargeCreatedHook, CreatedCharge } from '../../platform/extensions.ts';

export type { ChargeCreatedHook, CreatedCharge } from '../../platform/extensions.ts';

export async function runChargeCreatedHooks(
  sql: Sql,
  hooks: readonly ChargeCreatedHook[],
  charge: CreatedCharge,
  now: Date,
): Promise<void> {
  for (const hook of hooks) if (hook.appliesTo(charge)) await hook.onCreated(sql, charge, now);
}
