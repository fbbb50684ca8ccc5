/** Subscription plans: create, list, rename, delete (only without living subscriptions). No HTTP here. */
import type { Sql } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { brasiliaDateTime } from '../../platform/calendar.ts';
import { billingError } from '../shared/errors.ts';
import type { PlanCreateInput, PlanListInput } from './schemas.ts';
import {
  findPlan,
  insertPlan,
  listPlans,
  livingSubscriptionCount,
  markPlanDeleted,
  renamePlan,
  type PlanRow,
} from './store.ts';

export const planNotFound = () => billingError(404, 'plan_not_found', 'Plano não encontrado para esta conta.');

export const planView = (p: PlanRow) => ({
  plan_id: p.id,
  name: p.name,
  interval: p.interval_months,
  repeats: p.repeats,
  created_at: brasiliaDateTime(p.created_at),
});

export function createPlan(sql: Sql, accountId: number, body: PlanCreateInput, now: Date): Promise<PlanRow> {
  return insertPlan(
    sql,
    { account_id: accountId, name: body.name, interval_months: body.interval, repeats: body.repeats ?? null },
    now,
  );
}

export function plansOf(sql: Sql, accountId: number, query: PlanListInput): Promise<PlanRow[]> {
  return listPlans(sql, accountId, {
    name: query.name,
    limit: query.limit ?? LIMITS.billingPlanListMax,
    offset: query.offset ?? 0,
  });
}

export async function requirePlan(sql: Sql, accountId: number, id: number, lock = false): Promise<PlanRow> {
  const plan = await findPlan(sql, accountId, id, lock);
  if (!plan) throw planNotFound();
  return plan;
}

export async function updatePlanName(sql: Sql, accountId: number, id: number, name: string): Promise<void> {
  await renamePlan(sql, (await requirePlan(sql, accountId, id, true)).id, name);
}

/** Subscriptions lock their plan row (for share) when created: a delete and a new subscription are ordered. */
export async function deletePlan(sql: Sql, accountId: number, id: number, now: Date): Promise<void> {
  const plan = await requirePlan(sql, accountId, id, true);
  if ((await livingSubscriptionCount(sql, plan.id)) > 0)
    throw billingError(
      400,
      'plan_has_subscriptions',
      'O plano tem assinaturas ativas; cancele-as antes de excluir o plano.',
    );
  await markPlanDeleted(sql, plan.id, now);
}
