/**
 * SQL of a batch of card renewals (renewal-batch.ts): each statement writes the rows of the whole batch, as the
 * one-by-one path's statements write one subscription's (charges/store.ts, store.ts, transitions.ts).
 */
import type { Sql } from '../../platform/db/database.ts';
import { jobRowsInsertSql, jobRowsParams, outboxInsertSql, type JobRow } from '../../platform/outbox/jobs.ts';
import type { ItemInput, ShippingInput } from '../charges/schemas.ts';
import type { CardPaymentRecord, ChargeRow } from '../charges/store.ts';
import { MESSAGES } from '../charges/transitions.ts';
import type { SubscriptionStatus } from './store.ts';

/** A renewal charge as it ends its first transaction: answered by the issuer (approved, or unpaid with why). */
export interface RenewalCharge {
  status: 'approved' | 'unpaid';
  totalCents: number;
  items: ItemInput[];
  shippings: ShippingInput[];
  customId: string | null;
  notificationUrl: string | null;
  notificationToken: string;
  notificationGeneration: number;
  checkoutToken: string;
  marketplace: boolean;
  payment: CardPaymentRecord;
  refusal: string | null;
}

/** Inserts the charges (recurrent, already answered); their ids by notification token. */
export async function insertRenewalCharges(
  sql: Sql,
  accountId: number,
  charges: RenewalCharge[],
  now: Date,
): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ id: number; notification_token: string }>(
    `insert into billing_charges (account_id, status, total_cents, items, shippings, custom_id, notification_url,
       notification_token, notification_generation, checkout_token, marketplace, recurrent, payment, refusal_reason,
       refusal_retry, approved_at, created_at, updated_at)
     select $1, t.status, t.total, t.items::jsonb, t.shippings::jsonb, t.custom_id, t.url, t.token, t.generation,
       t.checkout, t.marketplace, true, t.payment::jsonb, t.refusal,
       case when t.refusal is null then null else false end, case when t.refusal is null then $2::timestamptz end, $2, $2
     from unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[],
       $11::text[], $12::boolean[], $13::text[], $14::text[])
       as t(status, total, items, shippings, custom_id, url, token, generation, checkout, marketplace, payment, refusal)
     returning id, notification_token`,
    [
      accountId,
      now,
      charges.map((c) => c.status),
      charges.map((c) => c.totalCents),
      charges.map((c) => JSON.stringify(c.items)),
      charges.map((c) => JSON.stringify(c.shippings)),
      charges.map((c) => c.customId),
      charges.map((c) => c.notificationUrl),
      charges.map((c) => c.notificationToken),
      charges.map((c) => c.notificationGeneration),
      charges.map((c) => c.checkoutToken),
      charges.map((c) => c.marketplace),
      charges.map((c) => JSON.stringify(c.payment)),
      charges.map((c) => c.refusal),
    ],
  );
  return new Map(rows.map((r) => [r.notification_token, Number(r.id)]));
}

type FirstCharge = Pick<ChargeRow, 'id' | 'account_id' | 'notification_url' | 'notification_generation'>;

/** The first charge of each subscription (whose token carries its events), locked in id order; by subscription. */
export async function lockFirstCharges(sql: Sql, subscriptionIds: number[]): Promise<Map<number, FirstCharge>> {
  const { rows } = await sql.query<FirstCharge & { subscription_id: number }>(
    `select s.subscription_id, c.id, c.account_id, c.notification_url, c.notification_generation
       from billing_subscription_charges s join billing_charges c on c.id = s.charge_id
      where s.subscription_id = any($1) and s.parcel = 1 order by c.id for update of c`,
    [subscriptionIds],
  );
  return new Map(rows.map((r) => [Number(r.subscription_id), { ...r, id: Number(r.id) }]));
}

export interface RenewalRows {
  accountId: number;
  now: Date;
  /** Each charge's parcel and the issuer's answer (its last status event). */
  charges: { chargeId: number; subscriptionId: number; parcel: number; status: string; message: string }[];
  /** Each subscription's move, its history and its event on its first charge. */
  subscriptions: {
    id: number;
    previous: SubscriptionStatus;
    status: SubscriptionStatus;
    occurrences: number;
    nextExecution: string | null;
    renewsOn: string | null;
    message: string;
    firstChargeId: number;
    firstGeneration: number;
  }[];
  /** Notifications and confirmations (`jobRow`), on the account's clock. */
  jobs: JobRow[];
}

/**
 * One statement: the parcels (the primary key (subscription, parcel) refuses a parcel charged before: the batch
 * fails whole), the charges' three status events, the subscriptions' moves, histories and events (the next event
 * id of each first charge, locked by `lockFirstCharges`) and the jobs.
 */
export async function writeRenewals(sql: Sql, rows: RenewalRows): Promise<void> {
  const { charges, subscriptions: subs, jobs } = rows;
  await sql.query(
    `with c as (select * from unnest($3::bigint[], $4::bigint[], $5::int[], $6::text[], $7::text[])
                 as t(charge_id, subscription_id, parcel, status, message)),
       parcels as (insert into billing_subscription_charges (subscription_id, parcel, charge_id)
         select subscription_id, parcel, charge_id from c),
       charge_events as (insert into billing_history (charge_id, event_id, status, previous_status, message, created_at)
         select c.charge_id, e.event_id, e.status, e.previous, e.message, $2 from c,
           lateral (values (1, 'new', null::text, $8::text), (2, 'waiting', 'new', $9::text),
                           (3, c.status, 'waiting', c.message)) as e(event_id, status, previous, message)),
       s as (select * from unnest($10::bigint[], $11::text[], $12::text[], $13::int[], $14::date[], $15::date[],
               $16::text[], $17::bigint[], $18::int[])
             as t(id, previous, status, occurrences, next_execution, renews_on, message, first_charge_id, first_generation)),
       moved as (update billing_subscriptions b set status = s.status, occurrences = s.occurrences,
           next_execution = s.next_execution, renews_on = s.renews_on, updated_at = $2
         from s where b.id = s.id),
       subscription_history as (insert into billing_subscription_history (subscription_id, status, message, created_at)
         select id, status, message, $2 from s),
       subscription_events as (insert into billing_history (charge_id, event_id, status, previous_status, message,
           created_at, subject_subscription_id)
         select s.first_charge_id,
           (select coalesce(max(h.event_id), 0) + 1 from billing_history h where h.charge_id = s.first_charge_id),
           s.status, s.previous, s.message, $2, s.id from s),
       generations as (update billing_charges f set notification_generation = s.first_generation
         from s where f.id = s.first_charge_id and f.notification_generation <> s.first_generation),
       jobs as (${jobRowsInsertSql(19, '$1::bigint', '$2')})
     select 1`,
    [
      rows.accountId,
      rows.now,
      charges.map((c) => c.chargeId),
      charges.map((c) => c.subscriptionId),
      charges.map((c) => c.parcel),
      charges.map((c) => c.status),
      charges.map((c) => c.message),
      MESSAGES.new,
      MESSAGES.waiting,
      subs.map((s) => s.id),
      subs.map((s) => s.previous),
      subs.map((s) => s.status),
      subs.map((s) => s.occurrences),
      subs.map((s) => s.nextExecution),
      subs.map((s) => s.renewsOn),
      subs.map((s) => s.message),
      subs.map((s) => s.firstChargeId),
      subs.map((s) => s.firstGeneration),
      ...jobRowsParams(jobs),
    ],
  );
  for (const job of jobs) job.wake(sql);
}

/**
 * The account's renewal job of each day at `ats` (its midnights), unless one for that day is pending and not
 * running (ensureRenewalDays in renewal.ts says why).
 */
export async function insertRenewalDayJobs(
  sql: Sql,
  topic: string,
  accountId: number,
  days: string[],
  ats: Date[],
  now: Date,
): Promise<void> {
  await sql.query(
    outboxInsertSql({
      topic: '$1',
      orderingKey: 'null',
      payload: 'd.payload',
      availableAt: 'd.at',
      createdAt: '$4',
      accountId: '$5::bigint',
      lock: 'for share',
      from: `(select * from (select jsonb_build_object('accountId', $5::bigint, 'date', day) as payload, at
                 from unnest($2::text[], $3::timestamptz[]) as t(day, at)) days
               where not exists (select 1 from outbox o where o.topic = $1 and o.done_at is null and o.account_id = $5
                 and o.payload = days.payload and (o.locked_until is null or o.locked_until <= $6))) d`,
    }),
    [topic, days, ats, now, accountId, new Date()],
  );
}
