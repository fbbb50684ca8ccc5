/** SQL of subscription plans. */
import type { Sql } from '../../platform/db/database.ts';

export interface PlanRow {
  id: number;
  account_id: number;
  name: string;
  interval_months: number;
  repeats: number | null;
  created_at: Date;
}

const COLUMNS = 'id, account_id, name, interval_months, repeats, created_at';

export async function insertPlan(
  sql: Sql,
  p: Pick<PlanRow, 'account_id' | 'name' | 'interval_months' | 'repeats'>,
  now: Date,
): Promise<PlanRow> {
  const { rows } = await sql.query<PlanRow>(
    `insert into billing_plans (account_id, name, interval_months, repeats, created_at) values ($1, $2, $3, $4, $5)
     returning ${COLUMNS}`,
    [p.account_id, p.name, p.interval_months, p.repeats, now],
  );
  return rows[0];
}

/** A plan of the account that was not deleted; `lock` holds it against a concurrent delete. */
export async function findPlan(sql: Sql, accountId: number, id: number, lock = false): Promise<PlanRow | undefined> {
  const { rows } = await sql.query<PlanRow>(
    `select ${COLUMNS} from billing_plans where id = $1 and account_id = $2 and deleted_at is null${lock ? ' for update' : ''}`,
    [id, accountId],
  );
  return rows[0];
}

export async function listPlans(
  sql: Sql,
  accountId: number,
  filter: { name?: string; limit: number; offset: number },
): Promise<PlanRow[]> {
  const { rows } = await sql.query<PlanRow>(
    `select ${COLUMNS} from billing_plans where account_id = $1 and deleted_at is null
       and ($2::text is null or name ilike '%' || $2 || '%') order by id limit $3 offset $4`,
    [accountId, filter.name ?? null, filter.limit, filter.offset],
  );
  return rows;
}

export async function renamePlan(sql: Sql, id: number, name: string): Promise<void> {
  await sql.query('update billing_plans set name = $2 where id = $1', [id, name]);
}

export async function markPlanDeleted(sql: Sql, id: number, now: Date): Promise<void> {
  await sql.query('update billing_plans set deleted_at = $2 where id = $1', [id, now]);
}

/** Subscriptions of the plan that still renew or wait for their payment. */
export async function livingSubscriptionCount(sql: Sql, planId: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from billing_subscriptions where plan_id = $1 and status in ('new', 'active', 'new_charge')`,
    [planId],
  );
  return rows[0].n;
}

/** A plan by id whether deleted or not: a subscription keeps renewing on the plan it was made on. */
export async function findPlanById(sql: Sql, id: number): Promise<PlanRow | undefined> {
  const { rows } = await sql.query<PlanRow>(`select ${COLUMNS} from billing_plans where id = $1`, [id]);
  return rows[0];
}
