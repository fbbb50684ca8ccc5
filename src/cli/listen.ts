/**
 * `pixd listen --forward-to http://localhost:3000/webhook [--key <chave>]` (sandbox): the account's webhooks,
 * delivered by pixd as to any receiver, are forwarded over plain HTTP to a local address, and the local
 * answer goes back as the delivery's outcome (retries and the delivery inspector see it). The server side
 * is src/sandbox/listen/; docs/webhooks.md tells the whole story.
 */
import { callbackUrl } from '../platform/webhooks/urls.ts';
import { LIMITS } from '../platform/limits.ts';
import type { ApiClient } from './api-client.ts';
import { CliError } from './operator-client.ts';

/** Less than the server's wait for an answer, so a slow local receiver is reported as such, not as silence. */
const LOCAL_TIMEOUT_MS = 9_000;
/** What of the local answer goes back with the outcome (the server keeps no more). */
const ANSWER_BODY_MAX_CHARS = 4096;

interface Delivery {
  entrega: number;
  sufixo: string;
  headers: Record<string, string>;
  corpo: string;
}

export function forwardTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--forward-to "${raw}" is not an absolute URL (like http://localhost:3000/webhook)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--forward-to must be an http:// or https:// URL, got ${url.protocol}`);
  return url;
}

/** The key a Pix callback is about, for the printed line. */
function keyOf(corpo: string): string {
  try {
    const pix = (JSON.parse(corpo) as { pix?: { chave?: string }[] }).pix;
    return pix?.[0]?.chave ?? '';
  } catch {
    return '';
  }
}

async function forwardOne(target: URL, delivery: Delivery) {
  const url = callbackUrl(target.toString(), delivery.sufixo);
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.corpo,
      signal: AbortSignal.timeout(LOCAL_TIMEOUT_MS),
    });
    const corpo = (await response.text()).slice(0, ANSWER_BODY_MAX_CHARS);
    return { url, answer: { statusCode: response.status, latencyMs: performance.now() - started, corpo } };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    const erro = `${url}: ${cause === 'TimeoutError' ? `no answer within ${LOCAL_TIMEOUT_MS} ms` : cause}`;
    return { url, answer: { statusCode: 502, latencyMs: performance.now() - started, erro } };
  }
}

export async function listen(
  api: ApiClient,
  forwardTo: string,
  chave: string | undefined,
  print: (line: string) => void,
): Promise<void> {
  const target = forwardTarget(forwardTo);
  let sessao = '';
  let reason: string | undefined;
  const answers: Promise<unknown>[] = [];
  const stream = api.pixStream('/sandbox/listen', chave === undefined ? {} : { chave }, (line) => {
    if (typeof line.fim === 'string') {
      reason = line.fim;
      return;
    }
    if (typeof line.sessao === 'string' && line.entrega === undefined) {
      sessao = line.sessao;
      const kinds = [
        `Pix of ${(line.chaves as string[]).join(', ') || 'no key'}`,
        ...(line.recorrencias ? ['recurrences', 'recurring charges'] : []),
      ];
      print(`forwarding ${kinds.join(', ')} of ${api.credentials.account.conta} to ${target} (Ctrl-C to stop)`);
      return;
    }
    const delivery = line as unknown as Delivery;
    answers.push(
      forwardOne(target, delivery).then(async ({ url, answer }) => {
        const kind = delivery.sufixo.replace(/^\//, '') || 'webhook';
        const outcome = answer.erro ?? String(answer.statusCode);
        print(
          `${new Date().toISOString()}  ${kind.padEnd(5)} ${keyOf(delivery.corpo)}  POST ${url}  ${outcome}  ${Math.round(answer.latencyMs)} ms`,
        );
        await api.pix('POST', `/sandbox/listen/${sessao}/respostas/${delivery.entrega}`, answer);
      }),
    );
  });
  // Only Ctrl-C (which exits before this) ends a session on purpose: any other end is the server's, and a
  // script or a terminal must see it. The server puts the registrations back as the stream closes.
  const lost = await stream.then(
    () => undefined,
    (error: unknown) => (error instanceof CliError && !sessao ? Promise.reject(error) : error),
  );
  await Promise.allSettled(answers);
  if (lost)
    throw new CliError(
      `pixd listen stopped: the connection to pixd was lost (${describe(lost)}); pixd puts the webhooks back where they were once it sees the session gone (a killed node at its restart, another node within ${LIMITS.listenSessionLeaseMs / 1000} s)`,
    );
  throw new CliError(
    `pixd listen stopped: ${reason ?? 'the server closed the stream'}; the webhooks point where they did before`,
  );
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(error);
}
