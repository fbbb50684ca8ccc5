/**
 * `import { startPixd } from 'pixd/testing'`: a sandbox node for an integrator's test suite, on a free port and
 * a copy of the template data (src/testing/template.ts), in this process or as a `pixd start` child. The
 * public types are public.d.ts; this module is the top of the import graph, like main.ts: nothing in src/
 * imports it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as Public from './public.d.ts';
import type { CredentialsFile } from '../accounts/credentials.ts';
import { ApiClient } from '../cli/api-client.ts';
import { parseDuration, payTarget, TRIGGERS } from '../cli/sandbox-commands.ts';
import { CliError, throughOperatorApi } from '../cli/operator-client.ts';
import { loadConfig } from '../config.ts';
import { startService } from '../runtime.ts';
import { seededData, type SeededData } from './template.ts';
import { startChild } from './child.ts';
import { pointSdkAt } from './point-sdk.ts';
import { freePort } from './ports.ts';

// The public credentials type is the one the service writes: a change to either fails the typecheck here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const credentialsMatch: Same<Public.PixdCredentials, CredentialsFile> = true;
void credentialsMatch;

/** A node's process: the in-process service or a child, stopped the same way. */
interface Running {
  pagesUrl: string;
  stop(): Promise<void>;
}

export const startPixd: typeof Public.startPixd = async (options = {}) => {
  const port = await freePort();
  const pagesPort = await freePort();
  const baseUrl = `https://127.0.0.1:${port}`;
  const data = await seededData(baseUrl, {
    adminUrl: options.postgresUrl,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-')),
  });
  const settings: Record<string, string> = {
    PIXD_DATA_DIR: data.dataDir,
    PORT: String(port),
    PIXD_PAGES_PORT: String(pagesPort),
    PIXD_ENV: 'sandbox',
    LOG_LEVEL: 'silent',
    ...(data.databaseUrl && { DATABASE_URL: data.databaseUrl }),
    ...options.settings,
  };
  let running: Running;
  try {
    running = options.mode === 'child' ? await startChild(settings, baseUrl) : await startInProcess(settings);
  } catch (error) {
    await data.discard();
    throw error;
  }
  return nodeHandle(data, running);
};

async function startInProcess(settings: Record<string, string>): Promise<Running> {
  const service = await startService(loadConfig(settings), { logger: false });
  return { pagesUrl: service.ctx.pages.url, stop: () => service.close() };
}

function nodeHandle(data: SeededData, running: Running): Public.Pixd {
  const credentials = JSON.parse(
    fs.readFileSync(path.join(data.dataDir, 'credentials.json'), 'utf8'),
  ) as CredentialsFile;
  const client = new ApiClient(credentials);
  const api: Public.PixdApi = {
    pix: (method, route, body) => client.pix(method, route, body),
    billing: (method, route, body) => client.billing(method, route, body),
  };
  const clockAt = (answer: Record<string, unknown>) => new Date(String(answer.agora));
  const operator = (action: string) => async (name: string) => {
    await throughOperatorApi(loadConfig({ PIXD_DATA_DIR: data.dataDir }), `/operator/snapshots/${action}`, { name });
  };
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: credentials.baseUrl,
    pagesUrl: running.pagesUrl,
    dataDir: data.dataDir,
    credentials,
    sdkOptions: {
      sandbox: true,
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      certificate: credentials.certificate.p12,
    },
    pointSdk: () => pointSdkAt(credentials.baseUrl, fs.readFileSync(credentials.caCertificate, 'utf8')),
    httpsOptions: {
      ca: fs.readFileSync(credentials.caCertificate, 'utf8'),
      cert: fs.readFileSync(credentials.certificate.pem, 'utf8'),
      key: fs.readFileSync(credentials.certificate.key, 'utf8'),
    },
    api,
    sandbox: {
      pay: (target, o = {}) =>
        api.pix('POST', '/sandbox/pix/pay', { ...payTarget(target), ...(o.valor && { valor: o.valor }) }),
      clock: {
        now: async () => clockAt(await api.pix('GET', '/sandbox/clock')),
        advance: async (duration) =>
          clockAt(await api.pix('POST', '/sandbox/clock/advance', { segundos: parseDuration(String(duration)) })),
        reset: async () => clockAt(await api.pix('POST', '/sandbox/clock/reset', {})),
      },
      async trigger(kind, o = {}) {
        const trigger = TRIGGERS[kind];
        if (!trigger || !Object.hasOwn(TRIGGERS, kind))
          throw new CliError(`no trigger "${kind}": one of ${Object.keys(TRIGGERS).join(', ')}`);
        return trigger.run(client, o);
      },
      async reset() {
        await api.pix('POST', '/sandbox/reset', {});
      },
      faults: {
        set: async (kind, ...options) => {
          const { durante, vezes, ...fields } = options[0] ?? {};
          return (await api.pix('PUT', `/sandbox/falhas/${encodeURIComponent(kind)}`, {
            ...fields,
            ...(vezes !== undefined && { vezes }),
            ...(durante !== undefined && { segundos: parseDuration(String(durante)) }),
          })) as unknown as Public.PixdFault;
        },
        list: async () => ((await api.pix('GET', '/sandbox/falhas')) as { falhas: Public.PixdFault[] }).falhas,
        async clear(kind) {
          await api.pix('DELETE', kind ? `/sandbox/falhas/${encodeURIComponent(kind)}` : '/sandbox/falhas');
        },
      },
    },
    snapshots: { save: operator('save'), restore: operator('restore'), delete: operator('delete') },
    stop() {
      stopped ??= (async () => {
        client.close();
        try {
          await running.stop();
        } finally {
          await data.discard();
        }
      })();
      return stopped;
    },
  };
}
