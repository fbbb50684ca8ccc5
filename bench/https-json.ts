/** One-off JSON requests over (mutual) TLS, for setting up a benchmark: accounts, tokens, fixtures. */
import https from 'node:https';

export interface Tls {
  ca: string;
  cert?: string;
  key?: string;
}

export interface JsonResponse {
  status: number;
  body: any;
}

export function requestJson(
  url: string,
  tls: Tls,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: options.method ?? 'GET', headers, ...tls, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // Not JSON: keep the text for the error message.
          }
          resolve({ status: response.statusCode ?? 0, body });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** `requestJson` that insists on one status and returns the body. */
export async function expectJson(status: number, what: string, ...args: Parameters<typeof requestJson>): Promise<any> {
  const response = await requestJson(...args);
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}
