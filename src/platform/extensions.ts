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
import type { OffsetClock } from './clock.ts';
import type { Database, Sql } from './db/database.ts';
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

/** A send leaving for another institution, as its settlement hands it over (inside its transaction). */
export interface ExternalSend {
  sentPixId: number;
  accountId: number;
  endToEndId: string;
  amountCents: number;
  payer: { nome: string; cpf?: string; cnpj?: string; conta: string };
  favorecido: SentFavorecido;
  infoPagador: string | null;
}

/**
 * What the receiver's institution did with a send: credited it, refused it (why), or will answer later (an SPI
 * message left through the boundary; its pacs.002 settles the send, src/spi/inbound.ts).
 */
export type ExternalOutcome = { credited: true } | { refused: string } | { answersLater: true };

/**
 * Where a Pix to a receiver outside this pixd goes (src/pix/send/external.ts: the production default and the
 * refusal it throws; src/spi/connector.ts: the SPI boundary; src/sandbox/institution.ts: the simulated one).
 */
export interface ExternalInstitution {
  /** At request time: refuses (SendRefused) or answers the receiver's identification. */
  accept(send: { amountCents: number; favorecido: SentFavorecido }): { nome: string; cpf?: string; cnpj?: string };
  /** At settlement, in its transaction: what the receiver's institution did, or that it answers later. */
  settle(sql: Sql, send: ExternalSend, now: Date): Promise<ExternalOutcome>;
}

/**
 * The label of a Pix a simulated institution delivers (`received_pix.origin`): the simulation names its own
 * (src/sandbox/), so no label of a simulation is spelled outside it; the core's own labels are plain strings of
 * `PixOrigin` (src/pix/received/store.ts).
 */
export type SimulatedOrigin = string & { readonly simulatedOrigin: true };

/**
 * A recurring charge's attempt that falls due, as its payer's institution is told: what its pacs.008 names (the
 * recurrence, the charge, the attempt's end-to-end id, the amount, the receiver's key) and who pays it.
 */
export interface DueRecurringAttempt {
  accountId: number;
  txid: string;
  idRec: string;
  endToEndId: string;
  amountCents: number;
  /** The receiving account's key the Pix lands on. */
  chave: string;
  payer: { nome: string; cpf?: string; cnpj?: string };
}

/**
 * The institution of the payer of a recurring charge or an Open Finance payment: what it does when a payment
 * falls due. Production (src/spi/payer.ts): a recurring charge awaits its payer's pacs.008 at the SPI boundary;
 * an Open Finance payment needs an Open Finance connector, which pixd does not have, and fails with a named
 * reason. The sandbox (src/sandbox/payer.ts) simulates a payer with the amount rules integrators know.
 */
export interface PayerInstitution {
  /**
   * A recurring charge's attempt is due: refused (the catalog's reason), or awaited — paid by a pacs.008 at the
   * SPI boundary (labelled 'spi'), which the institution sends when it will. Told on the database (`sql`) by the
   * attempt's job, which holds no lock: what the institution enqueues there (the sandbox's payer, its pacs.008)
   * is not waited for by anything the inbound path locks. Told again if the job runs again: the pacs.008 of one
   * attempt carries its end-to-end id, so a second one is a copy.
   */
  recurringAttemptDue(
    sql: Sql,
    attempt: DueRecurringAttempt,
    now: Date,
  ): Promise<{ refused: { codigo: string; descricao: string } } | { awaits: true }>;
  /**
   * An Open Finance payment its payer authorised is due, at `now` on the receiving account's clock: paid (its Pix
   * was credited at this node's SPI boundary) or refused (why: the institution's reason, or the receiving
   * account's refusal in the engine's words). Called outside any transaction: the Pix is credited by the inbound
   * path's own. Asked again for the same payment (a settlement job run twice), the same Pix: the boundary answers
   * a copy of its end-to-end id with the first answer, so it is never paid twice.
   */
  openFinancePaymentDue(node: PayerNode, payment: OpenFinancePix, now: Date): Promise<OpenFinancePixOutcome>;
  /**
   * A Pix from this institution held for the receiving participant's confirmation was decided, in the deciding
   * transaction (with the credit, on ACSP): the payer's side is answered (production: the pacs.002 of an inbound
   * pacs.008, src/spi/held.ts). RJCT carries the reason: the participant's, the engine's, or the timeout's.
   */
  heldPixDecided(sql: Sql, decision: HeldPixDecision, now: Date): Promise<void>;
}

/** What the payer's institution reaches of the node: where a Pix it sends arrives (the inbound path's). */
export interface PayerNode {
  db: Database;
  clock: OffsetClock;
}

/** The Pix an Open Finance payment makes, to an account at this pixd. */
export interface OpenFinancePix {
  /** Fixed when the payment was written (it carries the payer's institution's ISPB): sent again, the same Pix. */
  endToEndId: string;
  amountCents: number;
  /** The receiving account (bank data). */
  conta: string;
  /** A company's payment names the company; a person's, the person. */
  payer: { nome: string; cpf?: string; cnpj?: string };
  infoPagador: string | null;
}

export type OpenFinancePixOutcome = { paid: true } | { refused: string };

export interface HeldPixDecision {
  endToEndId: string;
  accountId: number;
  /** Who delivered the Pix (`received_pix.origin`): only the payer's institution that delivered it answers. */
  origin: string;
  status: 'ACSP' | 'RJCT';
  error: { code: string; reason: string } | null;
}

/** A bill not issued by this pixd, as its barcode carries it (src/billing/bills). */
export interface ExternalBill {
  tipo: 'boleto' | 'tributo';
  barcode: string;
  /** The amount the barcode carries in cents; null when it carries none (a reference quantity, or zero). */
  amountCents: number | null;
}

/** A bill payment leaving for the bill's institution, as its settlement hands it over (inside its transaction). */
export interface ExternalBillPayment extends ExternalBill {
  idPagamento: string;
  accountId: number;
  paidCents: number;
}

/**
 * The institutions of the bills this pixd did not issue: who the beneficiary is (the CIP's registry of
 * boletos, the utility of an arrecadação bill), whether a payment is taken, and what became of it. Production
 * (src/billing/bills/external.ts) has no bill-payment connector: it knows no beneficiary and refuses every
 * payment by name; the sandbox (src/sandbox/bills.ts) simulates one with documented amount rules.
 */
export interface BillInstitution {
  /** The registry's view of the bill; null: no connector to ask (the decoded barcode is all that is known). */
  describe(bill: ExternalBill): {
    beneficiario: { nome: string; fantasia: string; documento: string } | null;
    pagador: { nome: string; documento: string } | null;
  } | null;
  /** At request time: taken, or refused with the reason (answered as a named error). */
  accept(bill: ExternalBill & { paidCents: number }): { accepted: true } | { refused: string };
  /** On the payment date, in its transaction: settled (with its authentication), or refused (why). */
  settle(sql: Sql, payment: ExternalBillPayment, now: Date): Promise<{ protocolo: string } | { refused: string }>;
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

/**
 * A relay of the SPI boundary's outbound queue inside the node: it takes each message as its commit tells
 * (`SPI_OUTBOUND_CHANNEL`) and delivers the other institution's answer into the inbound path. The sandbox's
 * institution (src/sandbox/spi-institution.ts); production has none (its gateway is another process, and pulls).
 */
export interface SpiRelay {
  /** Passes over the queue begun since start: a caller that checks something between two `idle()` can tell one ran. */
  readonly passes: number;
  /**
   * Whether no pass is in flight and the queue holds no message left unacknowledged; one left by a pass whose
   * answer failed is taken again now (a pass begins), so a relay that can answer becomes idle.
   */
  idle(): Promise<boolean>;
  /** Stops taking the queue, after the pass in flight (before the database closes). */
  stop(): Promise<void>;
}
