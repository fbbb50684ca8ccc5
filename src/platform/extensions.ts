/**
 * The extension points of `AppContext` (context.ts): what the core calls and a deployment provides. A
 * production node installs its connectors, the sandbox its simulations (src/sandbox/extension.ts), through the
 * same interfaces. Each one is declared here, in platform, and speaks only platform types, so that context.ts
 * imports no feature and no module that imports it back (test/platform/boundaries.test.ts refuses any import
 * cycle, type-only imports counted). A new extension point: its interface here, its field on AppContext, its
 * production default beside the feature that calls it, its simulation in src/sandbox/. (The faults on demand
 * are declared in faults.ts: the webhook delivery this module's types name asks them too.)
 */
import type { FastifyInstance } from 'fastify';
import type { Sql } from './db/database.ts';
import type { AnyTopic } from './outbox/jobs.ts';
import type { DeliveryDeps } from './webhooks/delivery.ts';
import type { WebhookTransport } from './webhooks/transport.ts';

/** A charge just written, as the charge-created hooks see it. */
export interface CreatedCharge {
  accountId: number;
  txid: string;
  amountCents: number;
}

/**
 * Runs inside the transaction of every charge creation (API, batches): the sandbox registers its fictitious
 * payer; production registers nothing (src/pix/charges/hooks.ts runs them).
 */
export interface ChargeCreatedHook {
  /** Whether the hook acts on this charge; creation then opens a transaction for it. */
  appliesTo(charge: CreatedCharge): boolean;
  /** Runs inside the transaction that writes the charge: what it enqueues commits with the charge. */
  onCreated(sql: Sql, charge: CreatedCharge, now: Date): Promise<void>;
}

/** The receiver of a sent Pix, as the request names it: a key, or bank data. */
export interface SentFavorecido {
  chave?: string;
  contaBanco?: {
    nome: string;
    cpf?: string;
    cnpj?: string;
    codigoBanco: string;
    agencia: string;
    conta: string;
    tipoConta: string;
  };
  identificacao?: { nome: string; cpf?: string; cnpj?: string };
}

/**
 * Where a Pix to a receiver outside this pixd goes (src/pix/send/external.ts: the production default and the
 * refusal it throws; src/sandbox/institution.ts: the simulated institution).
 */
export interface ExternalInstitution {
  /** At request time: refuses (SendRefused) or answers the receiver's identification. */
  accept(send: { amountCents: number; favorecido: SentFavorecido }): { nome: string; cpf?: string; cnpj?: string };
  /** At settlement: undefined when the receiver's institution credited it, else why it did not. */
  settle(send: { amountCents: number }): string | undefined;
}

/** The webhook lanes as the application uses them (platform/webhooks/dispatcher.ts implements it). */
export interface WebhookLanes {
  /** The transport webhook registrations test a receiver with. */
  readonly transport: WebhookTransport;
  /** Registers a delivery topic (src/jobs.ts does, before the lanes start). */
  register(topic: AnyTopic<DeliveryDeps>): void;
  start(log: FastifyInstance['log']): void;
  stop(): Promise<void>;
}
