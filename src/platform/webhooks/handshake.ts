/**
 * The registration handshake (spec: Authentication 4-6). Before a webhook is saved the service calls the
 * URL twice with a test notification: first WITHOUT a client certificate, which the receiver must refuse
 * (TLS alert, reset or a non-2xx answer), then WITH the service's webhook client certificate, which must be
 * answered with a 2xx. `x-skip-mtls-checking: true` skips the first call; the second still presents the
 * certificate. Each family turns the failure cause into its own error (problem or named).
 */
import { checkWebhookUrl, isUrlProblem } from './urls.ts';
import type { FailureKind, WebhookTransport } from './transport.ts';

export type HandshakeCause =
  | 'invalid_url'
  | 'protocol'
  | 'mtls_not_enforced'
  | Exclude<FailureKind, 'http_status' | 'aborted'>
  | 'http_status';

export type HandshakeResult = { ok: true; url: string } | { ok: false; cause: HandshakeCause; detail: string };

/** The test notification of the handshake: receivers recognise it and answer 200 without acting on it. */
export const TEST_NOTIFICATION = { evento: 'teste_webhook' } as const;

export interface HandshakeOptions {
  skipMtlsCheck: boolean;
  timeoutMs: number;
}

const DESCRIBE: Record<Exclude<HandshakeCause, 'invalid_url' | 'protocol' | 'mtls_not_enforced'>, string> = {
  unreachable: 'A URL está inacessível',
  timeout: 'A URL não respondeu dentro do limite de tempo',
  no_response: 'A URL encerrou a conexão sem responder',
  tls: 'A conexão TLS com a URL falhou',
  forbidden: 'A URL aponta para um destino não permitido',
  http_status: 'A URL respondeu com código de erro HTTP',
};

export async function verifyReceiver(
  transport: WebhookTransport,
  rawUrl: string,
  options: HandshakeOptions,
): Promise<HandshakeResult> {
  const parsed = checkWebhookUrl(rawUrl);
  if (isUrlProblem(parsed)) return { ok: false, ...parsed };
  const call = (clientCertificate: boolean) =>
    transport.post(rawUrl, TEST_NOTIFICATION, { clientCertificate, timeoutMs: options.timeoutMs, fresh: true });

  if (!options.skipMtlsCheck) {
    const anonymous = await call(false);
    if (anonymous.ok) {
      return {
        ok: false,
        cause: 'mtls_not_enforced',
        // What else the caller may do depends on the family (the Pix webhooks accept x-skip-mtls-checking, the
        // account-opening one does not): the family adds it.
        detail: `A URL aceitou (HTTP ${anonymous.statusCode}) uma requisição sem certificado de cliente: configure o servidor para exigir o certificado do serviço (mTLS).`,
      };
    }
    // Refusing at TLS, resetting or answering non-2xx is the expected refusal; failing to connect at all is not.
    const kind = anonymous.failure!.kind;
    if (kind === 'unreachable' || kind === 'timeout' || kind === 'forbidden')
      return { ok: false, cause: kind, detail: `${DESCRIBE[kind]}: ${anonymous.failure!.message}` };
  }

  const authenticated = await call(true);
  if (authenticated.ok) return { ok: true, url: rawUrl };
  const failure = authenticated.failure!;
  const cause: HandshakeCause = failure.kind === 'aborted' ? 'no_response' : failure.kind;
  return {
    ok: false,
    cause,
    detail: `${DESCRIBE[cause as keyof typeof DESCRIBE]} (chamada com o certificado do serviço): ${failure.message}`,
  };
}
