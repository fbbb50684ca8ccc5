/**
 * The claim's choice of jobs, as SQL: which ready jobs a worker takes (src/platform/outbox/outbox.ts runs it
 * inside the statement that leases them).
 */
/** Fair claims read this many times the jobs they may take, per topic, to choose among accounts. */
export const FAIR_CLAIM_WINDOW = 8;

/**
 * The jobs a claim may take, as a CTE `ready (id)` over the parameters of `claim`: topics ($1), service now ($2),
 * wall now ($3), limit ($4), and for a fair claim the window ($7). Each topic's pending jobs are read in the
 * order they fell due (index outbox_topic_pending), then the earliest written first: a claim reads only what it
 * can take. Ordered by id over all topics, the plan walked the primary key past every pending job of other
 * topics (a day's due recurring charges made each webhook lane's claim read 10,000 rows it could not take);
 * jobs of one ordering key still run in id order.
 */
export function readyJobs(fair: boolean): string {
  const pending = (columns: string, limit: string, lock: string) => `
    select ${columns} from unnest($1::text[]) as t(topic) cross join lateral (
      select o.id, o.account_id, o.available_at from outbox o
      where o.topic = t.topic and o.done_at is null and o.available_at <= $2
        and (o.locked_until is null or o.locked_until <= $3)
        and (o.ordering_key is null or not exists (
          select 1 from outbox p where p.ordering_key = o.ordering_key and p.id < o.id and p.done_at is null))
      order by o.available_at, o.id limit ${limit} ${lock}) c`;
  if (!fair) return `ready as (${pending('c.id', '$4', 'for update of o skip locked')} order by c.id limit $4)`;
  // Read without locks, ranked per account, then locked: rows another worker took meanwhile are skipped.
  return `window_jobs as (${pending('c.id, c.account_id, c.available_at', '$7', '')}),
    fair as (select id from window_jobs
      order by row_number() over (partition by account_id order by available_at, id), available_at, id limit $4),
    ready as (select o.id from outbox o where o.id in (select id from fair) and o.done_at is null
      and (o.locked_until is null or o.locked_until <= $3) for update of o skip locked)`;
}
