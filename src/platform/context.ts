import type { Config } from '../config.ts';
import type { Database } from './db/database.ts';
import type { OffsetClock } from './clock.ts';
import type { TokenService } from './auth/tokens.ts';
import type { RateLimiter } from './ratelimit.ts';
import type { ServicePki } from './bootstrap.ts';
import type { OutboxWorker } from './outbox/outbox.ts';
import type {
  BillInstitution,
  ChargeCreatedHook,
  ExternalInstitution,
  PayerInstitution,
  SpiRelay,
  WebhookLanes,
} from './extensions.ts';
import type { FaultHooks } from './faults.ts';
import type { Pages } from './pages.ts';

/**
 * Everything a feature plugin may use, built once at start and handed to `buildApp`. Its types are platform
 * types only: the extension points' interfaces live in extensions.ts, so nothing here imports a feature.
 */
export interface AppContext {
  config: Config;
  db: Database;
  clock: OffsetClock;
  tokens: TokenService;
  rateLimiter: RateLimiter;
  pki: ServicePki;
  /** The main outbox worker: internal jobs (src/jobs.ts registers their topics); woken by commits. */
  outbox: OutboxWorker;
  /** The webhook lanes: deliveries (src/jobs.ts), and the transport that webhook registrations test with. */
  webhooks: WebhookLanes;
  /**
   * Extension point: run inside the transaction of every charge creation (API, batches). The sandbox
   * registers its fictitious payer; production registers nothing.
   */
  chargeCreatedHooks: ChargeCreatedHook[];
  /**
   * Extension point: where a Pix to a receiver outside this pixd goes. Production: the SPI boundary
   * (src/spi/connector.ts) with an SPI gateway, else `noSettlementConnector`; the sandbox: its simulated institution.
   */
  externalInstitution: ExternalInstitution;
  /**
   * Extension point: faults an integrator asked the sandbox for (docs/faults.md). Absent in production: the
   * points that ask (`ctx.faults?.…`) find nothing there.
   */
  faults?: FaultHooks;
  /**
   * Extension point: the payer's institution of recurring charges and Open Finance payments. Production:
   * `productionPayer` (src/spi/payer.ts); the sandbox: its simulated payer (src/sandbox/payer.ts).
   */
  payerInstitution: PayerInstitution;
  /**
   * Extension point: the institutions of bills this pixd did not issue (the bill-payment API). Production:
   * `noBillConnector` (src/billing/bills/external.ts); the sandbox: its simulated one (src/sandbox/bills.ts).
   */
  billInstitution: BillInstitution;
  /**
   * The relay of the SPI boundary's outbound queue in this process, when one runs: the sandbox's institution
   * (src/sandbox/spi-institution.ts), which the sandbox installs and its routes stop when the app closes; absent
   * in production. What "idle" means to a test includes it (test/helpers/wait.ts `outboxIdle`).
   */
  spiRelay?: SpiRelay;
  /** The pages listener's address and connections (platform/pages.ts). */
  pages: Pages;
  /**
   * Where this node's SFTP server for statement files listens (docs/statements.md), once it does; absent
   * while it does not (PIXD_SFTP_PORT off).
   */
  sftp: { address?: { host: string; port: number } };
}
