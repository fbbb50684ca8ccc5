/**
 * `pixd listen` sessions (docs/webhooks.md, "Forwarding to localhost"): a CLI holds a stream open to this
 * node; webhooks registered at the session's address arrive here as ordinary deliveries, go down the
 * stream, and wait for the CLI to say how its local receiver answered. A session lives in this node's
 * memory for as long as its stream; what it replaced is in the database (service.ts).
 */
import { randomUUID } from 'node:crypto';
import { LIMITS } from '../../platform/limits.ts';

/** One delivery sent down a stream: what pixd POSTed, for the CLI to POST to the local receiver. */
export interface ForwardedDelivery {
  entrega: number;
  /** The callback's suffix (`/pix`, `/rec`, `/cobr`): the CLI appends it to --forward-to, as pixd would. */
  sufixo: string;
  headers: Record<string, string>;
  corpo: string;
}

/** How the local receiver answered, as the CLI saw it. */
export interface LocalAnswer {
  statusCode: number;
  latencyMs: number;
  corpo?: string;
  erro?: string;
}

interface Pending {
  resolve(answer: LocalAnswer): void;
  timer: NodeJS.Timeout;
}

export class ListenSession {
  readonly id = randomUUID();
  private nextDelivery = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  constructor(
    readonly accountId: number,
    private readonly send: (delivery: ForwardedDelivery) => void,
  ) {}

  /** Sends a delivery down the stream and waits for its answer; a 504 when none comes in time. */
  forward(delivery: Omit<ForwardedDelivery, 'entrega'>, timeoutMs: number): Promise<LocalAnswer> {
    if (this.closed) return Promise.resolve(gone());
    const entrega = this.nextDelivery++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(entrega);
        resolve({ statusCode: 504, latencyMs: timeoutMs, erro: 'o pixd listen não respondeu a tempo' });
      }, timeoutMs);
      this.pending.set(entrega, { resolve, timer });
      this.send({ entrega, ...delivery });
    });
  }

  /** The CLI's answer to one delivery; false when none is waiting (answered already, or timed out). */
  answer(entrega: number, answer: LocalAnswer): boolean {
    const waiting = this.pending.get(entrega);
    if (!waiting) return false;
    clearTimeout(waiting.timer);
    this.pending.delete(entrega);
    waiting.resolve(answer);
    return true;
  }

  /** The stream closed: deliveries still waiting fail (and are retried on their schedule). */
  close(): void {
    this.closed = true;
    for (const [entrega, waiting] of this.pending) this.answer(entrega, gone());
  }
}

const gone = (): LocalAnswer => ({ statusCode: 410, latencyMs: 0, erro: 'a sessão do pixd listen terminou' });

/** The sessions open on this node, bounded per account so a loop of reconnects cannot grow it without end. */
export class ListenSessions {
  private readonly sessions = new Map<string, ListenSession>();
  private readonly enders = new Map<ListenSession, () => Promise<void>>();
  private readonly restoring = new Set<Promise<unknown>>();

  open(accountId: number, send: (delivery: ForwardedDelivery) => void): ListenSession | undefined {
    const ofAccount = [...this.sessions.values()].filter((s) => s.accountId === accountId).length;
    if (ofAccount >= LIMITS.listenSessionsPerAccount) return undefined;
    const session = new ListenSession(accountId, send);
    this.sessions.set(session.id, session);
    return session;
  }

  get count(): number {
    return this.sessions.size;
  }

  get(id: string): ListenSession | undefined {
    return this.sessions.get(id);
  }

  /** How to end the session's stream when the node shuts down; settles once its registrations are put back. */
  onEnd(session: ListenSession, end: () => Promise<void>): void {
    this.enders.set(session, end);
  }

  /** Forgets the session; `restoring` (its registrations being put back) is awaited at shutdown. */
  close(session: ListenSession, restoring?: Promise<unknown>): void {
    session.close();
    this.sessions.delete(session.id);
    this.enders.delete(session);
    if (restoring === undefined) return;
    this.restoring.add(restoring);
    void restoring.finally(() => this.restoring.delete(restoring));
  }

  async endAll(): Promise<void> {
    await Promise.all([...this.enders.values()].map((end) => end()));
  }

  async restored(): Promise<void> {
    await Promise.all(this.restoring);
  }
}
