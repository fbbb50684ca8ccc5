/**
 * `pixd/testing`: a pixd sandbox started from an integrator's own tests. This file is the package's public
 * type declaration (package.json `exports["./testing"].types`) and the contract src/testing/index.ts is
 * checked against, so it imports nothing: a consumer's compiler reads it and stops here.
 */

/** credentials.json: what a client needs to call the node (absolute file paths). */
export interface PixdCredentials {
  baseUrl: string;
  environment: string;
  clientId: string;
  clientSecret: string;
  /** The client certificate: PKCS#12 with an empty passphrase (carries pixd's CA too), and the PEM pair. */
  certificate: { p12: string; pem: string; key: string };
  /** The CA that signed the node's server certificate: trust it. */
  caCertificate: string;
  /** The chain of the certificate pixd presents to webhook receivers. */
  webhookCertificateChain: string;
  account: { nome: string; documento: string; conta: string; payeeCode: string; ispb?: string };
  /** The account's Pix keys (one random key on a new account). */
  chaves: string[];
}

export interface StartPixdOptions {
  /**
   * `in-process` (default): the node runs inside the calling process, the cheapest start. `child`: a `pixd
   * start` child process (its own memory and event loop; what a crash of the node looks like).
   */
  mode?: 'in-process' | 'child';
  /**
   * A PostgreSQL server to use instead of the embedded database, as an administrator's URL
   * (`postgres://postgres@127.0.0.1:5432/postgres`): the node gets a database of its own there, dropped by
   * `stop()`.
   */
  postgresUrl?: string;
  /** Further `pixd start` settings by environment name (`LOG_LEVEL`, `PIXD_WEBHOOK_ALLOW`, …). */
  settings?: Record<string, string>;
}

/** A Pix-family or billing-family call refused: the status and the family's error body. */
export interface PixdRefusal extends Error {
  status: number;
  body: Record<string, unknown>;
}

/** Calls with the account's certificate and a token of the route family (tokens are fetched once). */
export interface PixdApi {
  /** A Pix-family call (`/v2/…`, `/v1/…` Pix routes, `/sandbox/…`): resolves to the body, rejects with a PixdRefusal. */
  pix(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** A billing-family call (`/v1/charge…`), token from `/v1/authorize`. */
  billing(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
}

/** Durations as `pixd clock advance` takes them: `3d`, `2h`, `1d12h`, `90m`, `45s`, or a number of seconds. */
export type Duration = string | number;

export interface SandboxClock {
  /** The account's sandbox time. */
  now(): Promise<Date>;
  /** Moves the account's clock forward; due dates, expiries and renewals that fall due run. */
  advance(duration: Duration): Promise<Date>;
  /** Back to real time. */
  reset(): Promise<Date>;
}

/** What each kind of fault on demand takes (docs/faults.md); the API's body for `PUT /sandbox/falhas/<kind>`. */
export interface PixdFaultKinds {
  /** Sends by key: the key lookup answers 404 chave_nao_encontrada, or 504 consulta_chave_tempo_esgotado after `esperaMs`. */
  chave: { resultado: 'nao_encontrada' | 'tempo_esgotado'; esperaMs?: number };
  /** Delivery attempts to the account's webhooks fail with this status (400 to 599), then are retried as usual. */
  webhook: { status: number };
  /** Refunds of received Pix end NAO_REALIZADO with this reason. */
  devolucao: { motivo?: string };
  /** Card payments are refused by the issuer with this code (`1`, `2`, `3`: the sandbox's own; `05`, `51`, …). */
  cartao: { codigo: string; motivo?: string };
  /** Sends to other institutions end NAO_REALIZADO, rejected with this SPI code (`AC03`, `AM02`, …). */
  envio: { codigo: string; motivo?: string };
  /** The receiving (other) institution: slow (sends settle `atrasoMs` later) or down (sends end NAO_REALIZADO). */
  instituicao: { estado: 'lenta' | 'fora'; atrasoMs?: number };
  /** Rate-limited requests answer 429. */
  // biome-ignore lint/complexity/noBannedTypes: no fields of its own, only the span's
  limite: {};
}

/** How long a fault lasts: its next `vezes` occurrences, `durante` a time on the account's clock, or (neither) until cleared. */
export interface PixdFaultSpan {
  vezes?: number;
  durante?: Duration;
}

/** A fault in force, as `GET /sandbox/falhas` lists it. */
export interface PixdFault {
  tipo: keyof PixdFaultKinds;
  parametros: Record<string, unknown>;
  vezesRestantes?: number;
  ate?: string;
  criacao: string;
}

export interface PixdFaults {
  /** Sets the account's fault of this kind (replacing the one it had). */
  set<K extends keyof PixdFaultKinds>(
    kind: K,
    ...options: {} extends PixdFaultKinds[K]
      ? [options?: PixdFaultKinds[K] & PixdFaultSpan]
      : [options: PixdFaultKinds[K] & PixdFaultSpan]
  ): Promise<PixdFault>;
  /** The faults in force. */
  list(): Promise<PixdFault[]>;
  /** Clears one kind, or every fault (`sandbox.reset()` clears them too). */
  clear(kind?: keyof PixdFaultKinds): Promise<void>;
}

export interface PixdSandbox {
  /**
   * Pays as the sandbox's fictitious payer: a txid, a BR Code (pix copia e cola) or a key (then `valor` is
   * required). Resolves to the received Pix.
   */
  pay(target: string, options?: { valor?: string }): Promise<Record<string, unknown>>;
  clock: SandboxClock;
  /**
   * Fires a webhook kind the way `pixd trigger` does (`pix`, `devolucao`, `rec`, `cobr`, `abertura-conta`,
   * `cobranca`); resolves to the same line the command prints.
   */
  trigger(kind: string, options?: { chave?: string; valor?: string; notificationUrl?: string }): Promise<string>;
  /**
   * The account as it was created (`POST /sandbox/reset`): no charges, Pix, sends, webhooks, settings or
   * faults of its own, a zero balance, its clock on real time, the same credentials.
   */
  reset(): Promise<void>;
  /** Faults on demand for the account: what an integration must survive (docs/faults.md). */
  faults: PixdFaults;
}

/** What `new EfiPay(...)` of `sdk-node-apis-efi` takes for this node's demo account. */
export interface EfiSdkOptions {
  sandbox: boolean;
  client_id: string;
  client_secret: string;
  certificate: string;
}

/** The whole sandbox saved and put back (`pixd snapshot`): names of a-z, 0-9 and _. */
export interface PixdSnapshots {
  save(name: string): Promise<void>;
  restore(name: string): Promise<void>;
  delete(name: string): Promise<void>;
}

export interface Pixd {
  /** The API's origin (`https://127.0.0.1:<port>`). */
  baseUrl: string;
  /** The pages listener's origin (checkout, QR pages, console): no client certificate asked. */
  pagesUrl: string;
  /** This node's data directory (removed by `stop()`). */
  dataDir: string;
  credentials: PixdCredentials;
  /** For `new EfiPay(sdkOptions)`; call `pointSdk()` first so its requests reach this node. */
  sdkOptions: EfiSdkOptions;
  /**
   * Sends the official SDK's requests to this node: an axios adapter that rewrites the SDK's Efí origins and
   * trusts pixd's CA (docs/sdk.md). Affects `EfiPay` instances made afterwards; resolves to a function that
   * puts the previous adapter back. Needs `sdk-node-apis-efi` installed beside pixd.
   */
  pointSdk(): Promise<() => void>;
  /** For `new https.Agent(httpsOptions)` or `https.request`: pixd's CA and the client certificate (PEM). */
  httpsOptions: { ca: string; cert: string; key: string };
  /** Calls with the demo account's credentials. */
  api: PixdApi;
  /** The sandbox controls, as the demo account. */
  sandbox: PixdSandbox;
  snapshots: PixdSnapshots;
  /** Stops the node and removes its data (and its database on PostgreSQL). */
  stop(): Promise<void>;
}

/**
 * Starts a pixd sandbox on a free port with a temporary data directory, a copy of a node that went through
 * its first start once per pixd version and machine, so a second start in the same run costs a fraction of
 * a second.
 */
export declare function startPixd(options?: StartPixdOptions): Promise<Pixd>;
