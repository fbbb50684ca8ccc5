/** Storage side of the webhook attempt retention (retention.ts): the bounded delete and the job's one-chain check. */
import type { Sql } from '../db/database.ts';

export interface RetentionPass {
  /** Rows looked at (at most the batch): fewer means the table's end was reached. */
  examined: number;
  /** The last id looked at: where the next run of the pass starts. */
  lastId: number;
  /** Rows looked at that were older than the limit, deleted or kept for a delivery still under way. */
  old: number;
  deleted: number;
}

/**
 * One step of a pass over `webhook_attempts` in id order (the order they were recorded in): the next `batch`
 * rows after `afterId`, through the primary key, whichever are older than `before` deleted unless their delivery
 * (its outbox row) is unfinished, pending or retrying. One short statement, whatever the table's size.
 */
export async function deleteOldAttempts(
  sql: Sql,
  afterId: number,
  batch: number,
  before: Date,
): Promise<RetentionPass> {
  const { rows } = await sql.query<Record<string, string | number | null>>(
    `with seen as (
       select id, outbox_id, attempted_at < $3 as old from webhook_attempts where id > $1 order by id limit $2
     ), gone as (
       delete from webhook_attempts w using seen
        where w.id = seen.id and seen.old
          and not exists (select 1 from outbox o where o.id = seen.outbox_id and o.done_at is null)
       returning w.id
     )
     select (select count(*) from seen) as examined, (select max(id) from seen) as last_id,
            (select count(*) from seen where old) as old, (select count(*) from gone) as deleted`,
    [afterId, batch, before],
  );
  const row = rows[0];
  return {
    examined: Number(row.examined),
    lastId: Number(row.last_id ?? afterId),
    old: Number(row.old),
    deleted: Number(row.deleted),
  };
}

/** Whether another unfinished job of `topic` than `exceptId` exists (a second chain, started by another node). */
export async function otherJobPending(sql: Sql, topic: string, exceptId: number | null): Promise<boolean> {
  const { rows } = await sql.query(
    'select 1 from outbox where topic = $1 and done_at is null and ($2::bigint is null or id <> $2::bigint) limit 1',
    [topic, exceptId],
  );
  return rows.length > 0;
}
