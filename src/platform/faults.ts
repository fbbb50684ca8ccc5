/**
 * The extension point of the sandbox's faults on demand (docs/faults.md), in platform types only like those
 * of extensions.ts; its own module because the webhook delivery (platform/webhooks/delivery.ts), which
 * extensions.ts names, asks it too.
 */
import type { Sql } from './db/database.ts';

/**
 * What each fault an integrator can ask the sandbox for carries (docs/faults.md). The names are the kinds
 * the sandbox API takes (`PUT /sandbox/falhas/:tipo`).
 */
export interface FaultParams {
  /** The key lookup of a send by key: the directory answers that the key does not exist, or never answers. */
  chave: { resultado: 'nao_encontrada' | 'tempo_esgotado'; esperaMs: number };
  /** Delivery attempts to the account's webhooks fail as if its server had answered this status. */
  webhook: { status: number };
  /** Refunds of received Pix end NAO_REALIZADO with this reason. */
  devolucao: { motivo: string };
  /** Card payments are refused by the issuer with this code and reason. */
  cartao: { codigo: string; motivo: string };
  /** Sends to other institutions: the receiving institution rejects them (`motivo` ends with the reason code). */
  envio: { codigo: string; motivo: string };
  /** The receiving (other) institution: slow (its answer comes `atrasoMs` later) or down (the SPI gives up). */
  instituicao: { estado: 'lenta' | 'fora'; atrasoMs: number };
  /** Rate-limited requests answer 429 as if the account's budget were spent. */
  limite: Record<string, never>;
}

export type FaultKind = keyof FaultParams;

/**
 * Faults on demand, per account: the core asks at each point where one can apply. The sandbox installs it
 * (src/sandbox/faults/); production leaves `AppContext.faults` absent, so every point costs one `?.` there.
 */
export interface FaultHooks {
  /** Whether the account has a fault of this kind in force (memory only: cheap enough for every request). */
  active(accountId: number, kind: FaultKind): boolean;
  /**
   * The fault, if one applies to this occurrence; an occurrence it answers counts against its times, written
   * through `sql` (the caller's transaction when it has one: the count commits or rolls back with it).
   */
  take<K extends FaultKind>(sql: Sql, accountId: number, kind: K): Promise<FaultParams[K] | undefined>;
}
