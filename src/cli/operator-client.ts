/**
 * The CLI's way into a running server: the operator API on the address and secret the server wrote to
 * `<data dir>/operator.json`. The embedded database belongs to the server's process, so while a server
 * runs every command that writes goes through here.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { Config } from '../config.ts';
import { operatorFilePath, type OperatorFile } from '../operator/secret.ts';
import { readJsonFile } from '../platform/state-files.ts';

export class CliError extends Error {}

/** POSTs to the operator API; undefined when no server answers on the operator address (then the CLI opens the database). */
export async function throughOperatorApi<T>(config: Config, path: string, input: unknown): Promise<T | undefined> {
  const file = operatorFilePath(config.dataDir);
  if (!fs.existsSync(file)) return undefined;
  const operator = readJsonFile<OperatorFile>(file)!;
  const ca = fs.readFileSync(`${config.dataDir}/ca.pem`);
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const request = https.request(
      `${operator.url}${path}`,
      {
        method: 'POST',
        ca,
        headers: {
          authorization: `Bearer ${operator.secret}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          const parsed = parseAnswer(text, 'mensagem');
          if (response.statusCode === 200 || response.statusCode === 201) resolve(parsed as T);
          else reject(new CliError(`server refused: ${(parsed as { mensagem?: string }).mensagem ?? text}`));
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED'
        ? resolve(undefined)
        : reject(new CliError(`cannot reach the server at ${operator.url} (${error.code ?? error.message})`)),
    );
    request.end(body);
  });
}

/** A server's JSON answer; a body that is not JSON (a proxy's page) is kept, cut, under `fallbackProperty`. */
export function parseAnswer(text: string, fallbackProperty: string): Record<string, unknown> {
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return { [fallbackProperty]: text.slice(0, 200) };
  }
}
