/**
 * The batch job: one outbox job per accepted PUT/PATCH decides every waiting item of the batch in one
 * transaction. Items are planned in memory (schema and rules, `items.ts`), then written set-based: the
 * named locations are locked in one statement, fresh locations, charges and their revision 0 go in one
 * statement each, revisions in one, the items' outcomes in one. A 1000-item batch is a dozen round trips.
 * A job that runs twice finds nothing waiting the second time.
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import { ApiError, invalid, problemObject, type Violation } from '../../platform/errors.ts';
import { LIMITS } from '../../platform/limits.ts';
import { defineTopic, enqueue, type JobDeps, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import type { Clock } from '../../platform/clock.ts';
import { duplicateTxid, toWrite } from '../charges/lifecycle.ts';
import { keyViolations, locationRefusal } from '../charges/rules.ts';
import { insertCharges, lockCharges, reviseCharges } from '../charges/store.ts';
import { COBV } from '../cobv/service.ts';
import type { CobVBody } from '../cobv/schemas.ts';
import { runChargeCreatedHooks, type ChargeCreatedHook } from '../charges/hooks.ts';
import { planItem, type Plan } from './items.ts';
import {
  deleteLocations,
  insertLocations,
  locationUsers,
  lockBatchById,
  lockLocations,
  pendingItems,
  settleItems,
  type BatchRow,
  type ItemOutcome,
} from './store.ts';

export const LOTECOBV_TOPIC = defineTopic<
  { batchId: number },
  JobDeps & { chargeCreatedHooks: readonly ChargeCreatedHook[] }
>({
  name: 'lotecobv.process',
  handler: ({ db, clock, chargeCreatedHooks }) => batchJobHandler({ db, clock, chargeCreated: chargeCreatedHooks }),
});

/** Written in the transaction that accepted the request; the batch's jobs run one at a time, in order. */
export async function enqueueBatchJob(sql: Sql, batch: BatchRow, now: Date): Promise<void> {
  await enqueue(sql, {
    topic: LOTECOBV_TOPIC,
    payload: { batchId: batch.id },
    orderingKey: `lotecobv:${batch.id}`,
    accountId: batch.account_id,
    availableAt: now,
    now,
  });
}

export interface JobEnv {
  db: Database;
  clock: Clock;
  /** What runs when a charge is created (the sandbox's fictitious payer, if mounted), as for any charge. */
  chargeCreated: readonly ChargeCreatedHook[];
}

export function batchJobHandler(env: JobEnv) {
  return async (job: OutboxJob<{ batchId: number }>): Promise<JobOutcome> => {
    try {
      await env.db.tx((sql) => processBatch(sql, env, job.payload.batchId));
    } catch (error) {
      // Retried by the outbox (thrown) until the last attempt; then the items are denied, not left waiting.
      if (job.attempt < LIMITS.lotecobvJobMaxAttempts) throw error;
      await env.db.tx((sql) => denyWaiting(sql, job.payload.batchId));
      return { giveUp: (error as Error).message ?? String(error) };
    }
    return { done: true };
  };
}

/** The last resort of a failing job: every waiting item NEGADA with a 500 problem, so the batch takes requests again. */
async function denyWaiting(sql: Sql, batchId: number): Promise<void> {
  const problema = problemObject(
    new ApiError(500, 'ErroInternoDoServidor', 'A cobrança não pôde ser processada; reenvie-a.'),
  );
  const items = (await lockBatchById(sql, batchId)) ? await pendingItems(sql, batchId) : [];
  await settleItems(
    sql,
    batchId,
    items.map((i) => ({ position: i.position, status: 'NEGADA', problema, chargeId: null })),
  );
}

type Of<K extends Plan['kind']> = Extract<Plan, { kind: K }>;
const deny = (plan: Plan, detail: string, violation: Violation): Of<'deny'> => ({
  kind: 'deny',
  item: plan.item,
  error: invalid(COBV.invalidName, detail, [violation]),
});

export async function processBatch(sql: Sql, env: JobEnv, batchId: number): Promise<void> {
  const batch = await lockBatchById(sql, batchId);
  const items = batch ? await pendingItems(sql, batch.id) : [];
  if (!batch || !items.length) return;
  const accountId = batch.account_id;
  const now = env.clock.forAccount(accountId).now();
  const charges = new Map(
    (
      await lockCharges<CobVBody>(
        sql,
        accountId,
        items.flatMap((i) => i.charge_id ?? []),
      )
    ).map((c) => [c.id, c]),
  );
  const keys = new Map<string, Promise<Violation[]>>();
  const context = {
    now,
    keyViolations(chave: string) {
      let found = keys.get(chave);
      if (!found) keys.set(chave, (found = keyViolations(sql, accountId, chave, COBV.root)));
      return found;
    },
  };
  const planned: Plan[] = [];
  for (const item of items)
    planned.push(await planItem(item, item.charge_id === null ? undefined : charges.get(item.charge_id), context));
  const plans = await claimLocations(sql, accountId, planned);

  const outcomes: ItemOutcome[] = [
    ...(await create(
      sql,
      env,
      batch,
      now,
      plans.filter((p): p is Of<'create'> => p.kind === 'create'),
    )),
    ...(await revise(
      sql,
      now,
      plans.filter((p): p is Of<'revise'> => p.kind === 'revise'),
    )),
  ];
  for (const plan of plans) {
    if (plan.kind === 'keep')
      outcomes.push({ position: plan.item.position, status: 'CRIADA', problema: null, chargeId: null });
    if (plan.kind === 'deny')
      outcomes.push({
        position: plan.item.position,
        status: 'NEGADA',
        problema: problemObject(plan.error),
        chargeId: null,
      });
  }
  await settleItems(sql, batch.id, outcomes);
}

/**
 * Locks every location named by `loc.id` at once and checks each as a single request would
 * (`locationRefusal`); within the batch, the first item naming a location gets it.
 */
async function claimLocations(sql: Sql, accountId: number, plans: Plan[]): Promise<Plan[]> {
  const claiming = (p: Plan): p is Of<'create'> | Of<'revise'> =>
    (p.kind === 'create' || p.kind === 'revise') && p.locId !== undefined;
  const ids = [...new Set(plans.filter(claiming).map((p) => p.locId!))].sort((a, b) => a - b);
  if (!ids.length) return plans;
  const locations = await lockLocations(sql, accountId, ids);
  const users = await locationUsers(sql, ids);
  /** No charge has this id: "claimed by an earlier item of this batch". */
  const EARLIER_ITEM = -1;
  const claimed = new Set<number>();
  return plans.map((plan) => {
    if (!claiming(plan)) return plan;
    const locId = plan.locId!;
    const chargeId = plan.kind === 'revise' ? plan.charge.id : undefined;
    const user = claimed.has(locId) ? EARLIER_ITEM : users.get(locId);
    const refusal = locationRefusal(locations.get(locId), user, {
      accountId,
      locId,
      tipoCob: 'cobv',
      chargeId,
      errorName: COBV.invalidName,
      root: COBV.root,
    });
    if (refusal) return deny(plan, refusal.detail, refusal.violation);
    claimed.add(locId);
    return plan;
  });
}

async function create(
  sql: Sql,
  env: JobEnv,
  batch: BatchRow,
  now: Date,
  plans: Of<'create'>[],
): Promise<ItemOutcome[]> {
  const fresh = await insertLocations(sql, batch.account_id, plans.filter((p) => p.locId === undefined).length, now);
  let next = 0;
  const writes = plans.map((plan) => ({ plan, write: toWrite(plan.body, 'ATIVA', plan.locId ?? fresh[next++]) }));
  const created = await insertCharges(
    sql,
    batch.account_id,
    'cobv',
    writes.map((w) => ({ txid: w.plan.item.txid, write: w.write })),
    now,
    batch.id,
  );
  // A txid taken by a charge created alone after the batch was accepted (the rules make it a rare race): the
  // item is refused as that PUT /cobv would have been, and the fresh location it was given goes away.
  const lost = writes.filter((w) => !created.has(w.plan.item.txid));
  await deleteLocations(
    sql,
    lost.filter((w) => w.plan.locId === undefined).map((w) => w.write.locationId!),
  );
  const outcomes: ItemOutcome[] = [];
  for (const { plan, write } of writes) {
    const chargeId = created.get(plan.item.txid);
    if (chargeId === undefined) {
      outcomes.push({
        position: plan.item.position,
        status: 'NEGADA',
        problema: problemObject(duplicateTxid(COBV, plan.item.txid)),
        chargeId: null,
      });
      continue;
    }
    outcomes.push({ position: plan.item.position, status: 'CRIADA', problema: null, chargeId });
    const charge = { accountId: batch.account_id, txid: plan.item.txid, amountCents: write.amountCents };
    await runChargeCreatedHooks(sql, env.chargeCreated, charge, now);
  }
  return outcomes;
}

async function revise(sql: Sql, now: Date, plans: Of<'revise'>[]): Promise<ItemOutcome[]> {
  await reviseCharges(
    sql,
    plans.map((p) => ({
      chargeId: p.charge.id,
      revisao: p.charge.revisao + 1,
      write: toWrite(p.body, p.status, p.locId ?? p.charge.location_id),
    })),
    now,
  );
  return plans.map((p) => ({ position: p.item.position, status: 'CRIADA', problema: null, chargeId: null }));
}
