/**
 * The CLI as an integrator's client: the account's credentials file (credentials.json or
 * credentials-<conta>.json), its client certificate, and a token per route family, so `pixd pay`,
 * `pixd clock` and `pixd trigger` go through the same routes, scopes and rules as any application.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import type { CredentialsFile } from '../accounts/credentials.ts';
import { readJsonFile } from '../platform/state-files.ts';
import { CliError, parseAnswer } from './operator-client.ts';

const REQUEST_TIMEOUT_MS = 30_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export class ApiClient {
  private readonly agent: https.Agent;
  private readonly tokens = new Map<string, string>();

  constructor(readonly credentials: CredentialsFile) {
    this.agent = new https.Agent({
      keepAlive: true,
      ca: fs.readFileSync(credentials.caCertificate),
      cert: fs.readFileSync(credentials.certificate.pem),
      key: fs.readFileSync(credentials.certificate.key),
    });
  }

  static fromFile(file: string): ApiClient {
    const credentials = readJsonFile<CredentialsFile>(file);
    if (!credentials)
      throw new CliError(`no credentials file at ${file} (start the server once, or name one with --credentials)`);
    return new ApiClient(credentials);
  }

  /** A Pix-family call (client certificate and bearer token); refusals become one-line errors. */
  pix(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    return this.authorized('/oauth/token', method, path, body);
  }

  /** A billing-family call (its own token endpoint). */
  billing(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    return this.authorized('/v1/authorize', method, path, body);
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * A Pix-family POST whose answer is a stream of JSON lines (`pixd listen`): `onLine` gets each object as it
   * arrives; the promise settles when the stream ends. A refusal before the stream starts is a CliError.
   */
  async pixStream(path: string, body: unknown, onLine: (line: Record<string, unknown>) => void): Promise<void> {
    const authorization = `Bearer ${await this.token('/oauth/token')}`;
    const payload = JSON.stringify(body);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = https.request(new URL(path, this.credentials.baseUrl), {
        method: 'POST',
        agent: this.agent,
        headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      });
      request.on('response', resolve);
      request.on('error', (error: NodeJS.ErrnoException) => reject(unreachable(this.credentials.baseUrl, error)));
      request.end(payload);
    });
    if ((response.statusCode ?? 0) >= 400) {
      let text = '';
      for await (const chunk of response) text += chunk;
      throw refusal('POST', path, { status: response.statusCode ?? 0, body: parseAnswer(text, 'detail') });
    }
    for await (const line of createInterface({ input: response })) if (line.trim()) onLine(JSON.parse(line));
  }

  private async token(tokenPath: string): Promise<string> {
    let token = this.tokens.get(tokenPath);
    if (!token) {
      const basic = Buffer.from(`${this.credentials.clientId}:${this.credentials.clientSecret}`).toString('base64');
      const issued = await this.send('POST', tokenPath, { grant_type: 'client_credentials' }, `Basic ${basic}`);
      if (issued.status !== 200) throw refusal('POST', tokenPath, issued);
      token = issued.body.access_token as string;
      this.tokens.set(tokenPath, token);
    }
    return token;
  }

  private async authorized(tokenPath: string, method: string, path: string, body: unknown) {
    const answer = await this.send(method, path, body, `Bearer ${await this.token(tokenPath)}`);
    if (answer.status >= 400) throw refusal(method, path, answer);
    return answer.body;
  }

  private send(method: string, path: string, body: unknown, authorization: string): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = https.request(
        new URL(path, this.credentials.baseUrl),
        {
          method,
          agent: this.agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            authorization,
            accept: 'application/json',
            ...(payload !== undefined && {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            }),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: parseAnswer(text, 'detail') }));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      request.on('error', (error: NodeJS.ErrnoException) => reject(unreachable(this.credentials.baseUrl, error)));
      request.end(payload);
    });
  }
}

const unreachable = (baseUrl: string, error: NodeJS.ErrnoException) =>
  new CliError(`cannot reach pixd at ${baseUrl} (${error.code ?? error.message}): is the server running?`);

/** A call the server refused: its status and the family's error body, for callers that look (pixd/testing). */
export class ApiRefusal extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The family's own words for a refusal: Bacen problem, {nome, mensagem}, billing or OAuth bodies. */
function refusal(method: string, path: string, answer: Answer): ApiRefusal {
  const b = answer.body;
  const violations = Array.isArray(b.violacoes)
    ? (b.violacoes as { propriedade?: string; razao?: string }[]).map((v) => `${v.propriedade}: ${v.razao}`).join('; ')
    : '';
  const parts = [b.title ?? b.nome ?? b.error, b.detail ?? b.mensagem ?? b.error_description].filter(Boolean);
  const reason = parts.length ? joinSentences(parts.map(String)) : JSON.stringify(b);
  return new ApiRefusal(
    `${method} ${path} answered ${answer.status}: ${reason}${violations ? ` (${violations})` : ''}`,
    answer.status,
    b,
  );
}

/**
 * A title and its detail as one text: a title that is a sentence already ("Cobrança inválida.") is followed
 * by the detail, a bare name (`cobranca_inexistente`) by a colon; never "inválida.: …".
 */
export function joinSentences(parts: string[]): string {
  return parts.reduce((text, part) => (/[.!?]$/.test(text) ? `${text} ${part}` : `${text}: ${part}`));
}
