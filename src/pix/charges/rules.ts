/** Checks shared by immediate and due charges: the key and the location a charge points at. */
import type { Sql } from '../../platform/db/database.ts';
import { invalid, type ErrorNameWithStatus, type Violation } from '../../platform/errors.ts';
import { lockLocation, type LocationRow, type TipoCob } from '../loc/store.ts';
import { chargeUsingLocation, type KeyState } from './store.ts';

export function keyStateViolations(key: KeyState, chave: string, root: string): Violation[] {
  if (!key)
    return [{ property: `${root}.chave`, reason: 'a chave não pertence a este usuário recebedor.', value: chave }];
  if (key.removed_at) return [{ property: `${root}.chave`, reason: 'a chave foi removida.', value: chave }];
  return [];
}

export async function keyViolations(sql: Sql, accountId: number, chave: string, root: string): Promise<Violation[]> {
  const { rows } = await sql.query<{ removed_at: Date | null }>(
    'select removed_at from pix_keys where chave = $1 and account_id = $2',
    [chave, accountId],
  );
  return keyStateViolations(rows[0], chave, root);
}

export interface LocationClaim {
  accountId: number;
  locId: number;
  tipoCob: TipoCob;
  /** The charge being revised, which may keep its own location. */
  chargeId?: number;
  errorName: ErrorNameWithStatus<400>;
  root: string;
}

/**
 * Why a charge may not use the location named by `loc.id` (`location` as locked, `user` the charge serving
 * it), or undefined: it must exist, be of the same type and serve no other charge.
 */
export function locationRefusal(
  location: LocationRow | undefined,
  user: number | undefined,
  args: LocationClaim,
): { detail: string; violation: Violation } | undefined {
  const property = `${args.root}.loc.id`;
  if (!location)
    return {
      detail: 'O location referenciado por loc.id inexiste.',
      violation: { property, reason: 'location inexistente.', value: args.locId },
    };
  if (location.tipo_cob !== args.tipoCob) {
    return {
      detail: `O location apresenta tipo "${location.tipo_cob}" (deveria ser "${args.tipoCob}").`,
      violation: { property, reason: `tipoCob do location é ${location.tipo_cob}.`, value: args.locId },
    };
  }
  if (user !== undefined && user !== args.chargeId) {
    return {
      detail: 'O location referenciado por loc.id já está sendo utilizado por outra cobrança.',
      violation: { property, reason: 'location em uso.', value: args.locId },
    };
  }
  return undefined;
}

/**
 * Returns the location named by `loc.id` if the charge may use it (see `locationRefusal`). The row is
 * locked, so two charges cannot claim it at once.
 */
export async function claimLocation(sql: Sql, args: LocationClaim): Promise<LocationRow> {
  const location = await lockLocation(sql, args.accountId, args.locId);
  const user = location && (await chargeUsingLocation(sql, location.id));
  const refusal = locationRefusal(location, user, args);
  if (refusal) throw invalid(args.errorName, refusal.detail, [refusal.violation]);
  return location!;
}
