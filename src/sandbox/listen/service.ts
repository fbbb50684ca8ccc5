/**
 * What a `pixd listen` session changes: the account's webhook registrations point at the session while it
 * lasts, through the same registration (handshake included) as PUT /v2/webhook and /v2/webhookrec|cobr, and
 * go back to what they were when it ends, unless someone registered another address meanwhile. The session
 * and each registration it replaces are written down first (listen_sessions), so they go back whatever ends
 * the stream: the command, the node's shutdown, or the node's death (then the next node that notices).
 */
import { activeKeys } from '../../accounts/store.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import { THIS_HOST_HOLDERS, heldByDeadProcess } from '../../platform/processes.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { registerAccountWebhook, registerPixWebhook, type RegistrationDeps } from '../../pix/webhook/service.ts';
import {
  deleteAccountWebhook,
  deletePixWebhook,
  findAccountWebhook,
  findPixWebhook,
  saveAccountWebhook,
  savePixWebhook,
} from '../../pix/webhook/store.ts';
import { insertSession, recordReplaced, sessionsToJudge, takeSession, type Replaced } from './store.ts';

export interface SessionRegistration {
  chaves: string[];
  /** Whether the account's recurrence and recurring-charge webhooks point at the session too. */
  recorrencias: boolean;
}

export interface SessionOpening {
  id: string;
  url: string;
  /** The node holding the stream, and until when its lease runs. */
  holder: string;
  aliveUntil: Date;
  now: Date;
}

type Before = NonNullable<Replaced['before']>;

/** One registration the session replaces, read and written the same way whether replacing or putting back. */
function registrationOf(accountId: number, target: Omit<Replaced, 'before'>) {
  const { kind, chave = '' } = target;
  if (kind === 'pix')
    return {
      find: (sql: Sql) => findPixWebhook(sql, accountId, chave),
      save: (sql: Sql, before: Before) =>
        savePixWebhook(sql, { ...before, chave, account_id: accountId, created_at: new Date(before.created_at) }),
      remove: (sql: Sql) => deletePixWebhook(sql, accountId, chave),
    };
  return {
    find: (sql: Sql) => findAccountWebhook(sql, accountId, kind),
    save: (sql: Sql, before: Before) =>
      saveAccountWebhook(sql, { ...before, kind, account_id: accountId, created_at: new Date(before.created_at) }),
    remove: (sql: Sql) => deleteAccountWebhook(sql, accountId, kind),
  };
}

/**
 * With a key: that key's Pix webhook. Without: every active key's, and the account's recurrence and
 * recurring-charge webhooks. A registration that fails puts back what the session had already changed.
 */
export async function registerSession(
  deps: RegistrationDeps,
  caller: Caller,
  opening: SessionOpening,
  chave: string | undefined,
): Promise<SessionRegistration> {
  const { db } = deps;
  const { id, url } = opening;
  const chaves = chave === undefined ? await activeKeys(db, caller.accountId) : [chave];
  const kinds = chave === undefined ? (['rec', 'cobr'] as const) : [];
  await insertSession(db, { ...opening, accountId: caller.accountId, webhookUrl: url });
  const pointAt = async (target: Omit<Replaced, 'before'>, register: () => Promise<unknown>) => {
    const before = await registrationOf(caller.accountId, target).find(db);
    const kept = before && {
      webhook_url: before.webhook_url,
      skip_mtls: before.skip_mtls,
      created_at: new Date(before.created_at).toISOString(),
    };
    await recordReplaced(db, id, { ...target, before: kept ?? null });
    await register();
  };
  try {
    for (const key of chaves)
      await pointAt({ kind: 'pix', chave: key }, () => registerPixWebhook(deps, caller, key, url, false));
    for (const kind of kinds) await pointAt({ kind }, () => registerAccountWebhook(deps, caller, kind, url, false));
  } catch (error) {
    await restoreSession(db, id);
    throw error;
  }
  return { chaves, recorrencias: kinds.length > 0 };
}

/**
 * Ends the session: puts back each registration that still points at it (in one transaction with the
 * session's removal, so two nodes never both do it). Nothing when the session is gone already.
 */
export async function restoreSession(db: Database, id: string): Promise<void> {
  await db.tx(async (sql) => {
    const session = await takeSession(sql, id);
    if (!session) return;
    for (const replaced of [...session.replaced].reverse()) {
      const registration = registrationOf(session.account_id, replaced);
      if ((await registration.find(sql))?.webhook_url !== session.webhook_url) continue;
      await (replaced.before ? registration.save(sql, replaced.before) : registration.remove(sql));
    }
  });
}

/**
 * Sessions whose stream is gone without their node putting anything back: held by a dead process of this
 * host (a node killed and restarted), or whose lease ran out (a node gone elsewhere). Answers how many.
 */
export async function restoreOrphanedSessions(db: Database, now: Date): Promise<number> {
  const judged = await sessionsToJudge(db, now, THIS_HOST_HOLDERS);
  const orphaned = judged.filter((session) => session.expired || heldByDeadProcess(session.holder));
  for (const session of orphaned) await restoreSession(db, session.id);
  return orphaned.length;
}
