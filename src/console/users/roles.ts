/**
 * Console roles: named sets of the API's scopes (scopes are the console's roles, docs/console.md). A console
 * user holds one; every page and action requires the scope of the API route that does the same thing.
 */
import { SCOPES, type Scope } from '../../platform/auth/scopes.ts';

export const ROLES = ['viewer', 'developer', 'admin'] as const;
export type RoleName = (typeof ROLES)[number];

const READ_SCOPES = SCOPES.filter((s) => s.endsWith('.read'));

const ROLE_SCOPES: Record<RoleName, readonly Scope[] | 'all'> = {
  /** Looks: every page, no change. */
  viewer: READ_SCOPES,
  /** Integrates: looks, replays webhooks and uses the sandbox tools (pay a charge, move the clock). */
  developer: [...READ_SCOPES, 'webhook.write', 'webhookrec.write', 'webhookcobr.write', 'sandbox.write'],
  /** Every scope, as the operator, on the user's accounts only. */
  admin: 'all',
};

export const isRole = (value: string): value is RoleName => (ROLES as readonly string[]).includes(value);

export const scopesOf = (role: RoleName): readonly Scope[] | 'all' => ROLE_SCOPES[role];
