/**
 * What the sandbox adds to a node besides its routes, attached through the core's extension points. The
 * runtime loads this module (`await import`) only when PIXD_ENV=sandbox: a production node never does.
 */
import type { AppContext } from '../platform/context.ts';
import { SANDBOX_AUTOPAY_TOPIC, autoPaymentHook } from './settlement.ts';
import { simulatedInstitution } from './institution.ts';
import { startSandboxInstitution } from './spi-institution.ts';
import { faultBook } from './faults/book.ts';
import { simulatedPayer } from './payer.ts';
import { SANDBOX_RECURRING_PAYER_TOPIC } from './recurring-payer.ts';
import { simulatedBillInstitution } from './bills.ts';

/** Before the webhook lanes are made (they take the faults), so on the context without them. */
export function installSandbox(ctx: Omit<AppContext, 'webhooks'>): void {
  ctx.outbox.register(SANDBOX_AUTOPAY_TOPIC, ctx);
  ctx.outbox.register(SANDBOX_RECURRING_PAYER_TOPIC, ctx);
  // The fictitious payer joins every charge creation (API and batches) through the core's extension point.
  ctx.chargeCreatedHooks.push(autoPaymentHook);
  // Sends to keys and accounts outside this pixd reach a simulated institution instead of none: through the SPI
  // boundary's outbound queue, which the sandbox's institution in the node answers.
  ctx.externalInstitution = simulatedInstitution;
  ctx.spiRelay = startSandboxInstitution(ctx);
  // Faults an integrator asks for (docs/faults.md): the core asks at each point where one can apply.
  const faults = faultBook(ctx);
  void faults.reload().catch(() => undefined);
  ctx.faults = faults;
  // Recurring charges and Open Finance payments have a simulated payer with the amount rules integrators know;
  // it pays a recurring charge by its pacs.008 through the SPI boundary.
  ctx.payerInstitution = simulatedPayer;
  // Bills not issued by this pixd have a simulated institution with amount rules (docs/bill-payments.md).
  ctx.billInstitution = simulatedBillInstitution;
}
