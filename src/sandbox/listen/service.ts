/**
 * What a `pixd listen` session changes: the account's webhook registrations point at the session while it
 * lasts, through the same registration (handshake included) as PUT /v2/webhook and /v2/webhookrec|cobr, and
 * go back to what they were when it ends, unless someone registered another address meanwhile.
 */
import { activeKeys } from '../../accounts/store.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { registerAccountWebhook, registerPixWebhook, type RegistrationDeps } from '../../pix/webhook/service.ts';
import {
  deleteAccountWebhook,
  deletePixWebhook,
  findAccountWebhook,
  findPixWebhook,
  saveAccountWebhook,
  savePixWebhook,
  type AccountWebhookKind,
} from '../../pix/webhook/store.ts';

export interface SessionRegistration {
  chaves: string[];
  /** Whether the account's recurrence and recurring-charge webhooks point at the session too. */
  recorrencias: boolean;
  /** Puts back each registration that still points at the session. */
  restore(): Promise<void>;
}

const ACCOUNT_KINDS: AccountWebhookKind[] = ['rec', 'cobr'];

/**
 * With a key: that key's Pix webhook. Without: every active key's, and the account's recurrence and
 * recurring-charge webhooks. A registration that fails puts back what the session had already changed.
 */
export async function registerSession(
  deps: RegistrationDeps,
  caller: Caller,
  url: string,
  chave: string | undefined,
): Promise<SessionRegistration> {
  const { db } = deps;
  const chaves = chave === undefined ? await activeKeys(db, caller.accountId) : [chave];
  const kinds = chave === undefined ? ACCOUNT_KINDS : [];
  const undo: (() => Promise<void>)[] = [];
  const restore = async () => {
    for (const step of undo.reverse()) await step();
  };
  try {
    for (const key of chaves)
      undo.push(
        await pointAt(
          url,
          () => findPixWebhook(db, caller.accountId, key),
          () => registerPixWebhook(deps, caller, key, url, false),
          (before) => savePixWebhook(db, before),
          () => deletePixWebhook(db, caller.accountId, key),
        ),
      );
    for (const kind of kinds)
      undo.push(
        await pointAt(
          url,
          () => findAccountWebhook(db, caller.accountId, kind),
          () => registerAccountWebhook(deps, caller, kind, url, false),
          (before) => saveAccountWebhook(db, before),
          () => deleteAccountWebhook(db, caller.accountId, kind),
        ),
      );
  } catch (error) {
    await restore();
    throw error;
  }
  return { chaves, recorrencias: kinds.length > 0, restore };
}

/** Registers `url` in place of what `find` reads; returns the step that puts it back. */
async function pointAt<Row extends { webhook_url: string }>(
  url: string,
  find: () => Promise<Row | undefined>,
  register: () => Promise<unknown>,
  putBack: (before: Row) => Promise<unknown>,
  remove: () => Promise<unknown>,
): Promise<() => Promise<void>> {
  const before = await find();
  await register();
  return async () => {
    if ((await find())?.webhook_url !== url) return;
    await (before ? putBack(before) : remove());
  };
}
