/**
 * The sandbox's other institution, inside the node (docs/spi.md, "The sandbox's institution"): the SPI simulator's
 * rules speaking the SPI's messages through the same boundary as a production node's gateway.
 *
 *   the payer's institution  the fictitious payer (the pay endpoint, auto-settlement, Open Finance payments) sends
 *                            a pacs.008 built and validated here into the inbound path (`receiveSpiMessage`, what
 *                            POST /spi/mensagens runs), and reads pixd's pacs.002: the one payment engine decides
 *                            behind it
 *   the receiver's           it takes the node's outbound queue (`pendingOutbound`, what GET /spi/saida reads) when
 *   institution              a commit queues a message, answers each pacs.008 by the amount rules integrators know
 *                            (`simulatedSendOutcome`) and each pacs.004 with ACSP, delivers the pacs.002 into the
 *                            inbound path, and acknowledges (a held Pix's pacs.002 is only acknowledged)
 *
 * The process simulator (`pixd spi-simulator`, spi-simulator.ts) builds the same messages with the functions here.
 */
import { newEndToEndId, RECEIVER_ISPB, SANDBOX_PAYER_ISPB } from '../platform/institution.ts';
import type { SpiRelay } from '../platform/extensions.ts';
import { LIMITS } from '../platform/limits.ts';
import type { SenderReads, SpiNode } from '../spi/credit.ts';
import type { OpenFinancePix, OpenFinancePixOutcome } from '../platform/extensions.ts';
import { receiveSpiMessage, type CreditDecision, type InboundAnswer } from '../spi/inbound.ts';
import {
  buildCreditTransfer,
  buildStatusReport,
  newMsgId,
  parseSpiMessage,
  type CreditTransfer,
  type SpiMessage,
  type StatusReport,
} from '../spi/messages.ts';
import {
  ackOutbound,
  hasUnacknowledgedOutbound,
  pendingOutbound,
  SPI_OUTBOUND_CHANNEL,
  type OutboundRow,
} from '../spi/store.ts';
import { simulatedSendOutcome } from './institution.ts';

/** The sandbox's fictitious payer, a customer of the sandbox payer's institution (SANDBOX_PAYER_ISPB). */
export const FICTITIOUS_PAYER = { nome: 'Pagador Ficticio Sandbox', cpf: '11144477735' } as const;

/** The fictitious payer's account at its institution, as its pacs.008 names it. */
const PAYER_ACCOUNT = { ispb: SANDBOX_PAYER_ISPB, conta: '1234567', agencia: '0001', tipoConta: 'CACC' } as const;

/** A Pix the sandbox payer's institution sends to this node. */
export interface PayerOrder {
  creditor: CreditTransfer['creditor'];
  amountCents: number;
  txid?: string;
  idRec?: string;
  endToEndId?: string;
  initiation?: CreditTransfer['initiation'];
  payer?: { nome: string; cpf?: string; cnpj?: string };
  infoPagador?: string;
  /** The payer's institution's ISPB, when not the sandbox payer's (an Open Finance payment's participant). */
  payerIspb?: string;
}

/**
 * The pacs.008 of a payer's order, at `now` (the receiving account's clock in the node). Checked against its XSD
 * by the node that receives it, as every message (its only destination is a node's inbound path).
 */
export function payerCreditTransfer(order: PayerOrder, now: Date): string {
  const payer = order.payer ?? FICTITIOUS_PAYER;
  const ispb = order.payerIspb ?? SANDBOX_PAYER_ISPB;
  return buildCreditTransfer(
    {
      msgId: newMsgId(ispb),
      createdAt: now,
      endToEndId: order.endToEndId ?? newEndToEndId(now, ispb),
      ...(order.txid && { txid: order.txid }),
      ...(order.idRec && { idRec: order.idRec }),
      ...(order.initiation && { initiation: order.initiation }),
      amountCents: order.amountCents,
      acceptedAt: now,
      // The message's name is the catalog's Text140; the pay endpoint takes names up to 200 characters.
      debtor: { ...PAYER_ACCOUNT, ispb, ...payer, nome: payer.nome.slice(0, 140) },
      creditor: { ispb: RECEIVER_ISPB, ...order.creditor },
      ...(order.infoPagador && { infoPagador: order.infoPagador }),
    },
    'on-receipt',
  );
}

/** The pacs.008 of an Open Finance payment's Pix: initiated by a payment initiator, to the receiving account. */
export function initiatedCreditTransfer(pix: OpenFinancePix, now: Date): string {
  return payerCreditTransfer(
    {
      creditor: { conta: pix.conta },
      amountCents: pix.amountCents,
      endToEndId: pix.endToEndId,
      initiation: 'INIC',
      payer: pix.payer,
      ...(pix.infoPagador !== null && { infoPagador: pix.infoPagador }),
      payerIspb: pix.endToEndId.slice(1, 9),
    },
    now,
  );
}

/**
 * An Open Finance payment's Pix: its payer's institution (the participant whose ISPB the payment's end-to-end id
 * carries) sends a pacs.008 initiated by a payment initiator (`INIC`) to the receiving account, and the payment is
 * paid on pixd's ACSP. Sent as often as the payment's settlement asks, always with the payment's end-to-end id:
 * a copy is answered with the first answer and credits nothing. A refusal is told in the engine's words when this
 * delivery decided it, else (a copy's) in the pacs.002's.
 */
export async function payerPaysInitiated(ctx: SpiNode, pix: OpenFinancePix, now: Date): Promise<OpenFinancePixOutcome> {
  const answer = await receiveSpiMessage(ctx, initiatedCreditTransfer(pix, now));
  const report = statusReportOf(answer);
  if (report.status !== 'RJCT') return { paid: true };
  const decided = answer.credit && 'refused' in answer.credit ? answer.credit.refused.message : undefined;
  return { refused: decided ?? report.reason?.info ?? report.reason?.code ?? 'RJCT' };
}

/**
 * The other institution's answer to one of the node's messages: a pacs.008 by the amount rules integrators know,
 * a pacs.004 accepted; nothing to a pacs.002 (the answer of a held Pix the payer's institution sent).
 */
export function otherInstitutionAnswer(message: SpiMessage, at: Date): string | undefined {
  const base = { msgId: newMsgId(SANDBOX_PAYER_ISPB), createdAt: at };
  if (message.kind === 'pacs.008') {
    const outcome = simulatedSendOutcome(message.amountCents);
    const answer = {
      ...base,
      originalMsgId: message.msgId,
      originalMsgName: 'pacs.008.spi.1.13',
      originalId: message.endToEndId,
    } as const;
    return 'credited' in outcome
      ? buildStatusReport({ ...answer, status: 'ACSP', settledAt: at })
      : buildStatusReport({ ...answer, status: 'RJCT', reason: outcome.refused });
  }
  if (message.kind === 'pacs.004')
    return buildStatusReport({
      ...base,
      originalMsgId: message.msgId,
      originalMsgName: 'pacs.004.spi.1.5',
      originalId: message.rtrId,
      status: 'ACSP',
      settledAt: at,
    });
  return undefined;
}

/** What became of the payer's Pix, read from pixd's answer, with the engine's decision behind it. */
export type PayerOutcome =
  | { status: 'ACSP'; credit: Extract<CreditDecision, { received: unknown }> }
  | { status: 'held'; credit: Extract<CreditDecision, { held: unknown }> }
  | {
      status: 'RJCT';
      reason: { code: string; info?: string };
      credit?: Extract<CreditDecision, { refused: unknown }>;
    };

/** pixd's pacs.002 answering a pacs.008 (a Pix held for a participant has none yet). */
function statusReportOf(answer: InboundAnswer): StatusReport {
  const report = answer.xml === undefined ? undefined : parseSpiMessage(answer.xml);
  if (report?.kind !== 'pacs.002')
    throw new Error(`the node answered a pacs.008 with ${report?.kind ?? answer.status}`);
  return report;
}

/**
 * The sandbox payer's institution sends a pacs.008 into the node's inbound path and reads the answer; what the
 * payer's app read before (the charge it pays) goes with it, so the node does not read it again.
 */
export async function payerPays(
  ctx: SpiNode,
  order: PayerOrder,
  now: Date,
  reads?: SenderReads,
): Promise<PayerOutcome> {
  const answer = await receiveSpiMessage(ctx, payerCreditTransfer(order, now), reads);
  const credit = answer.credit;
  // The node's decision on this delivery says what its answer says (a credit is answered ACSP; a Pix held for a
  // participant, not yet): the payer reads the pacs.002 back only for what the decision does not tell, a refusal's
  // reason (reading it back cost every success ~18 µs: docs/performance.md, session 15).
  if (credit && 'received' in credit) return { status: 'ACSP', credit };
  if (answer.status === 202 && credit && 'held' in credit) return { status: 'held', credit };
  const report = statusReportOf(answer);
  if (report.status === 'RJCT')
    return {
      status: 'RJCT',
      reason: report.reason ?? { code: 'RJCT' },
      ...(credit && 'refused' in credit && { credit }),
    };
  // Fresh ids every time: an answer without this delivery's decision would be a copy's.
  throw new Error(`pacs.008 ${report.originalId} answered ${report.status} without a decision`);
}

/** Starts the node's sandbox institution (the sandbox extension does, at install, and sets it as the node's relay). */
export function startSandboxInstitution(ctx: SpiNode): SandboxSpiInstitution {
  const institution = new SandboxSpiInstitution(ctx);
  institution.start();
  return institution;
}

/**
 * The receiver's institution: takes the node's outbound queue as a gateway does, each time a commit queued a
 * message (and once at start, for what a stop left), one pass at a time. A message whose answer fails stays
 * unacknowledged and is taken again at the next pass.
 */
export class SandboxSpiInstitution implements SpiRelay {
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private begun = 0;

  constructor(private readonly ctx: SpiNode) {}

  /** Subscribes to the queue's commits and takes what is already there. */
  start(): void {
    this.ctx.db.subscribe(SPI_OUTBOUND_CHANNEL, () => this.wake());
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.pass !== undefined) this.again = true;
    else this.pass = this.takeQueue();
  }

  get passes(): number {
    return this.begun;
  }

  async idle(): Promise<boolean> {
    if (this.pass !== undefined) return false;
    if (this.stopped || !(await hasUnacknowledgedOutbound(this.ctx.db))) return this.pass === undefined;
    this.wake();
    return false;
  }

  /** Passes until no commit queued anything during the last one. */
  private async takeQueue(): Promise<void> {
    do {
      this.again = false;
      this.begun++;
      try {
        await this.drain();
      } catch {
        // The database went away mid-pass (a stop) or a read failed: what is unacknowledged waits for the next.
      }
    } while (this.again && !this.stopped);
    this.pass = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.pass;
  }

  /**
   * Every message not yet acknowledged, from the oldest, each answered once per pass. A pull's answers are
   * delivered at once: the answers to sends share the inbound path's statements (src/spi/answer-batch.ts), the
   * others (refunds' and MED returns' pacs.004) are a transaction each.
   */
  private async drain(): Promise<void> {
    let after = 0;
    while (!this.stopped) {
      const rows = await pendingOutbound(this.ctx.db, after, LIMITS.spiOutboundPullMax);
      if (!rows.length) return;
      after = Number(rows[rows.length - 1].id);
      const answered = await Promise.all(rows.map((row) => this.answer(row)));
      const taken = rows.filter((_, n) => answered[n]).map((row) => Number(row.id));
      await ackOutbound(this.ctx.db, taken, this.ctx.clock.now());
    }
  }

  /** The other institution's answer delivered into the inbound path; false when it failed (answered next pass). */
  private async answer(row: OutboundRow): Promise<boolean> {
    try {
      const answer = otherInstitutionAnswer(parseSpiMessage(row.xml), this.ctx.clock.forAccount(row.account_id).now());
      if (answer) await receiveSpiMessage(this.ctx, answer);
      return true;
    } catch {
      return false;
    }
  }
}
