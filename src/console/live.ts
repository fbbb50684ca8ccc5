/**
 * Live updates: each open console page holds one server-sent event stream. The stream polls its account's
 * live mark (console/store.ts: the newest charge, received Pix and webhook attempt) and sends `change` when
 * it moves, whichever node made the change; the page then reloads its list region. A comment line keeps
 * proxies from closing an idle stream. Streams end when the node closes or their session is refused (signed out, its user removed or
 * given a new secret).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { LIMITS } from '../platform/limits.ts';
import { liveMark } from './store.ts';
import type { Session, SessionCodec } from './session.ts';

/** Polls between keep-alive comments. */
const POLLS_PER_KEEPALIVE = 15;

export class LiveStreams {
  private readonly open_ = new Set<() => void>();
  /** Set by closeAll: a stream whose request was admitted before the node began closing, but that opens after. */
  private closing = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly sessions: SessionCodec,
  ) {}

  open(request: FastifyRequest, reply: FastifyReply, session: Session): void {
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    raw.write('retry: 2000\n\n');
    // The node began closing, or the connection ended, while the request's session was being checked: ended at
    // once, as closeAll ends the others (the page reconnects, to another node), instead of polling on for a
    // connection that is gone or a close that has passed.
    if (this.closing || request.socket.destroyed) {
      raw.end();
      return;
    }
    let last: string | undefined;
    let polls = 0;
    let busy = false;
    const account = session.current;
    const tick = async () => {
      if (busy) return;
      busy = true;
      try {
        const { mark, state } = await liveMark(this.ctx.db, account, session);
        // Signed out (in any browser holding this session, on any node), its user removed or given a new
        // secret: the stream ends; the page's reconnect is then refused like any request of that session.
        if (this.sessions.refused(session, state)) return close();
        if (last !== undefined && mark !== last) raw.write('event: change\ndata: {}\n\n');
        else if (++polls % POLLS_PER_KEEPALIVE === 0) raw.write(': keep-alive\n\n');
        last = mark;
      } catch (error) {
        request.log.warn({ err: error }, 'console live poll failed');
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void tick(), LIMITS.consoleLivePollMs);
    const close = () => {
      clearInterval(timer);
      this.open_.delete(close);
      raw.end();
    };
    this.open_.add(close);
    request.raw.on('close', close);
    void tick();
  }

  closeAll(): void {
    this.closing = true;
    for (const close of [...this.open_]) close();
  }
}
