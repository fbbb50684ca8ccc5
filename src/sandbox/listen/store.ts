/** Storage of `pixd listen` sessions and of the registrations each replaced (migration 032). */
import type { Sql } from '../../platform/db/database.ts';

/** A registration as it was before the session replaced it; `before` null: there was none. */
export interface Replaced {
  kind: 'pix' | 'rec' | 'cobr';
  chave?: string;
  before: { webhook_url: string; skip_mtls: boolean; created_at: string } | null;
}

export interface SessionRow {
  id: string;
  account_id: number;
  webhook_url: string;
  replaced: Replaced[];
}

export async function insertSession(
  sql: Sql,
  session: { id: string; accountId: number; webhookUrl: string; holder: string; aliveUntil: Date; now: Date },
): Promise<void> {
  await sql.query(
    `insert into listen_sessions (id, account_id, webhook_url, holder, alive_until, opened_at)
     values ($1, $2, $3, $4, $5, $6)`,
    [session.id, session.accountId, session.webhookUrl, session.holder, session.aliveUntil, session.now],
  );
}

/** Written before the registration is replaced: a node killed in between leaves nothing unrecorded. */
export async function recordReplaced(sql: Sql, id: string, replaced: Replaced): Promise<void> {
  await sql.query(`update listen_sessions set replaced = replaced || jsonb_build_array($2::jsonb) where id = $1`, [
    id,
    JSON.stringify(replaced),
  ]);
}

export async function renewSessions(sql: Sql, holder: string, aliveUntil: Date): Promise<void> {
  await sql.query('update listen_sessions set alive_until = $2 where holder = $1', [holder, aliveUntil]);
}

/** Removes the session and answers what it replaced; undefined when another node took it first. */
export async function takeSession(sql: Sql, id: string): Promise<SessionRow | undefined> {
  const { rows } = await sql.query<SessionRow>(
    'delete from listen_sessions where id = $1 returning id, account_id, webhook_url, replaced',
    [id],
  );
  return rows[0] && { ...rows[0], account_id: Number(rows[0].account_id) };
}

/** Sessions whose lease ran out, and those held by this host's processes (judged alive or not by the caller). */
export async function sessionsToJudge(
  sql: Sql,
  now: Date,
  thisHost: string,
): Promise<{ id: string; holder: string; expired: boolean }[]> {
  const { rows } = await sql.query<{ id: string; holder: string; expired: boolean }>(
    `select id, holder, alive_until < $1 as expired from listen_sessions where alive_until < $1 or holder like $2`,
    [now, thisHost],
  );
  return rows;
}
