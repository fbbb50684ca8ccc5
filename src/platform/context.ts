import type { Config } from '../config.ts';
import type { Database } from './db/database.ts';
import type { OffsetClock } from './clock.ts';
import type { TokenService } from './auth/tokens.ts';
import type { RateLimiter } from './ratelimit.ts';
import type { ServicePki } from './bootstrap.ts';
import type { OutboxWorker } from './outbox/outbox.ts';
import type { ChargeCreatedHook } from '../pix/charges/hooks.ts';

/** Everything a feature plugin may use, built once at start and handed to `buildApp`. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: OffsetClock;
  tokens: TokenService;
  rateLimiter: RateLimiter;
  pki: ServicePki;
  /** Feature plugins register their job handlers here; routes wake it after committing work. */
  outbox: OutboxWorker;
  /**
   * Extension point: run inside the transaction of every charge creation (API, batches). The sandbox
   * registers its fictitious payer; production registers nothing.
   */
  chargeCreatedHooks: ChargeCreatedHook[];
}
