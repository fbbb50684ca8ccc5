/**
 * Points the official Efí Node SDK (`sdk-node-apis-efi`) at a pixd node without changing the SDK.
 *
 * The SDK hard-codes its origins (`https://pix-h.api.efipay.com.br`, `https://cobrancas-h.api.efipay.com.br`,
 * `https://openfinance-h.api.efipay.com.br`, `https://pagarcontas-h.api.efipay.com.br` and their production twins) and talks through axios: `axios.create()` once per `EfiPay` instance for API
 * calls, and the root `axios(...)` for tokens. Both read the root `axios.defaults`: `axios.create()` merges
 * them when the instance is made, the root instance on every request. So a transport adapter installed in
 * `axios.defaults.adapter` BEFORE `new EfiPay(...)` sees every request the SDK makes and can send it to pixd:
 *
 * - the Efí origin is replaced by `baseUrl` (path and query kept); every other URL passes through untouched;
 * - billing requests (no `httpsAgent`, the SDK relies on public CAs) get an agent that trusts pixd's CA;
 * - Pix requests keep the SDK's own agent (its client certificate) when it can already verify pixd: a PKCS#12
 *   agent does, because Node trusts the extra certificates of a PFX and pixd bundles its CA there. A PEM
 *   agent (`cert` + `key`) trusts only the public roots, so it is cloned with pixd's CA added (the
 *   process-wide alternative is `NODE_EXTRA_CA_CERTS=<ca.pem>`).
 *
 * Without `caPem` only the address is changed: the process must already trust pixd's CA
 * (`NODE_EXTRA_CA_CERTS`), except for a PKCS#12 certificate, which carries it.
 *
 * `EfiPay` instances made before the call keep talking to Efí: their axios instance merged the old defaults.
 * The returned function restores the previous adapter (again only for instances made afterwards).
 *
 * axios is the SDK's dependency, not pixd's: it is loaded when asked for, both as the SDK's ES module build
 * imports it and as its CommonJS build requires it (two module instances, two sets of defaults), from where
 * pixd is installed, which finds the copy npm hoisted beside the SDK.
 */
import https from 'node:https';
import { createRequire } from 'node:module';
import type { AxiosAdapter, AxiosStatic, InternalAxiosRequestConfig } from 'axios';

/** The SDK's Pix (`APIS.PIX.URL`) and billing (`APIS.DEFAULT.URL`) origins, sandbox and production. */
export const EFI_ORIGINS = [
  'https://pix-h.api.efipay.com.br',
  'https://pix.api.efipay.com.br',
  'https://cobrancas-h.api.efipay.com.br',
  'https://cobrancas.api.efipay.com.br',
  // Open Finance (`APIS.OPENFINANCE.URL`): the SDK's base path ends in /v1, which pixd serves as is.
  'https://openfinance-h.api.efipay.com.br',
  'https://openfinance.api.efipay.com.br',
  // Bill payments (`APIS.PAGAMENTOS.URL`): also a base path ending in /v1, served as is (docs/bill-payments.md).
  'https://pagarcontas-h.api.efipay.com.br',
  'https://pagarcontas.api.efipay.com.br',
  // CNAB statements (`APIS.EXTRATOS.URL`): also a base path ending in /v1.
  'https://extratos-h.api.efipay.com.br',
  'https://extratos.api.efipay.com.br',
  // Account opening (`APIS.CONTAS.URL`): also a base path ending in /v1 (docs/simplified-accounts.md).
  'https://abrircontas-h.api.efipay.com.br',
  'https://abrircontas.api.efipay.com.br',
] as const;

/** The URL the request goes to, if it is one of the SDK's origins; otherwise null. */
export function rewriteEfiUrl(url: string, baseUrl: string): string | null {
  const base = baseUrl.replace(/\/+$/, '');
  for (const origin of EFI_ORIGINS) {
    if (url === origin || url.startsWith(origin + '/') || url.startsWith(origin + '?'))
      return base + url.slice(origin.length);
  }
  return null;
}

function fullUrl(config: InternalAxiosRequestConfig): string {
  const url = config.url ?? '';
  if (!config.baseURL || /^[a-z][a-z\d+\-.]*:\/\//i.test(url)) return url;
  return config.baseURL.replace(/\/+$/, '') + '/' + url.replace(/^\/+/, '');
}

async function loadAxios(): Promise<AxiosStatic[]> {
  let imported: AxiosStatic;
  try {
    imported = (await import('axios')).default;
  } catch {
    throw new Error('pointSdk needs sdk-node-apis-efi (and its axios) installed beside pixd');
  }
  const required = createRequire(import.meta.url)('axios') as AxiosStatic;
  return required === imported ? [imported] : [imported, required];
}

export async function pointSdkAt(baseUrl: string, caPem?: string): Promise<() => void> {
  const restores = (await loadAxios()).map((axios) => pointAxiosAt(axios, baseUrl, caPem));
  return () => {
    for (const restore of restores) restore();
  };
}

function pointAxiosAt(axios: AxiosStatic, baseUrl: string, caPem: string | undefined): () => void {
  const previous = axios.defaults.adapter;
  const http: AxiosAdapter = axios.getAdapter('http');
  // One agent for requests that bring none (billing family), one clone per PEM agent the SDK builds.
  const billingAgent = caPem === undefined ? undefined : new https.Agent({ ca: caPem, keepAlive: true });
  const trusting = new WeakMap<https.Agent, https.Agent>();

  function agentFor(agent: https.Agent | undefined): https.Agent | undefined {
    if (caPem === undefined) return agent;
    if (!(agent instanceof https.Agent)) return billingAgent;
    const options = agent.options;
    if (options.pfx || options.ca) return agent;
    let clone = trusting.get(agent);
    if (!clone) {
      clone = new https.Agent({ ...options, ca: caPem });
      trusting.set(agent, clone);
    }
    return clone;
  }

  const pointed: AxiosAdapter = (config) => {
    const target = rewriteEfiUrl(fullUrl(config), baseUrl);
    if (target === null) return http(config);
    return http({ ...config, baseURL: undefined, url: target, httpsAgent: agentFor(config.httpsAgent) });
  };
  axios.defaults.adapter = pointed;
  return () => {
    if (axios.defaults.adapter === pointed) axios.defaults.adapter = previous;
    billingAgent?.destroy();
  };
}
