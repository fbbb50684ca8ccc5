/**
 * The demo account: one per database, holding every scope but the participant ones. The first node that
 * starts without a credentials.json creates it; every other node (several nodes on one PostgreSQL, or a data
 * directory that lost its credentials.json) writes the same credentials. What was issued (client secret,
 * client certificate and its key) is kept in the service state for that, beside the CA's key and the token
 * signing key, which already let whoever reads the database act as any client (docs/security.md).
 */
import type { Database } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { ServicePki } from '../platform/bootstrap.ts';
import { MIGRATION_LOCK_ID } from '../platform/db/migrate.ts';
import { readState, writeState } from '../platform/state.ts';
import { SCOPES, isParticipantScope } from '../platform/auth/scopes.ts';
import { createAccount, type IssuedAccount } from './service.ts';

const STATE = 'demo.account';

export async function ensureDemoAccount(
  db: Database,
  pki: ServicePki,
  clock: Clock,
): Promise<{ issued: IssuedAccount; created: boolean }> {
  // Under the start-up lock and in one transaction with the account: nodes starting together make one, and a
  // start killed half-way leaves none (the next start makes it).
  return db.withAdvisoryLock(MIGRATION_LOCK_ID, (sql) =>
    sql.atomic(async (tx) => {
      const existing = await readState<IssuedAccount>(tx, STATE);
      if (existing) return { issued: existing, created: false };
      // The demo account is not an indirect participant (docs/participants.md).
      const issued = await createAccount(tx, pki, clock, {
        nome: 'Pixd Demo Ltda',
        scopes: SCOPES.filter((s) => !isParticipantScope(s)),
      });
      await writeState(tx, STATE, issued);
      return { issued, created: true };
    }),
  );
}

/** The demo account's first key, once the demo account exists (the API reference's examples use it). */
export async function demoKey(db: Database): Promise<string | undefined> {
  return (await readState<IssuedAccount>(db, STATE))?.chaves[0];
}
