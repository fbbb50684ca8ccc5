/**
 * Every method of the official Node SDK reaches pixd (issue 32, "Done when" 1). The methods are read from the
 * SDK's own endpoint constants (`constants.APIS.*.ENDPOINTS` in its bundle, the table its constructor makes its
 * methods from), so the list is not hand-typed; each is called once, with minimal plausible inputs, through the
 * SDK against one pixd node. None may answer a 5xx, nor pixd's "route not found" 404. Every other answer must be
 * one the table below explains for the input sent (a placeholder id names nothing: 404; an empty body fails
 * the schema: 400; …). Methods pixd does not serve yet are named in NOT_YET_IMPLEMENTED, printed, never faked.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import axios, { type AxiosAdapter } from 'axios';
import type { EfiPay } from './efipay.ts';

interface Endpoint {
  name: string;
  route: string;
  method: string;
}

interface Constants {
  APIS: Record<string, { URL: { SANDBOX: string }; ENDPOINTS: Record<string, { route: string; method: string }> }>;
}

/** The SDK's constants, read from its bundle (they are not exported): data only. */
function sdkConstants(): Constants {
  const bundle = createRequire(import.meta.url).resolve('sdk-node-apis-efi');
  const literal = /^var constants = (\{[\s\S]*?^\});$/m.exec(fs.readFileSync(bundle, 'utf8'));
  assert.ok(literal, 'the SDK bundle declares its constants');
  return new Function(`return ${literal[1]}`)() as Constants;
}

/**
 * The SDK's 177 methods as its constants list them: per API family, `authorize` (its token route, which the
 * SDK calls itself before the family's first request) and the family's endpoint methods.
 */
function sdkEndpoints(constants: Constants): { endpoints: Endpoint[]; tokenUrls: string[] } {
  const endpoints: Endpoint[] = [];
  const tokenUrls: string[] = [];
  for (const api of Object.values(constants.APIS))
    for (const [name, e] of Object.entries(api.ENDPOINTS)) {
      if (name === 'authorize') tokenUrls.push(api.URL.SANDBOX + e.route);
      else endpoints.push({ name, ...e });
    }
  return { endpoints, tokenUrls };
}

/** Plausible placeholder values by route parameter: each names a resource that does not exist. */
const PARAMS: Record<string, string> = {
  id: '1',
  parcel: '1',
  token: 'naoexiste',
  txid: 'naoexiste0000000000000000000001',
  e2eId: 'E00000000202601010000naoexiste01',
  e2eid: 'E00000000202601010000naoexiste01',
  endToEndId: 'E00000000202601010000naoexiste01',
  idEnvio: 'naoexiste01',
  chave: 'naoexiste@example.com',
  splitConfigId: 'naoexiste0000000000000000000001',
  idInfracao: 'naoexiste',
  idRec: 'RR0000000020260101naoexiste01',
  idSolicRec: 'SC0000000020260101naoexiste01',
  data: '2026-01-01',
  identificadorPagamento: 'naoexiste',
  codBarras: '00000000000000000000000000000000000000000000',
  // Bill payment ids are numbers: pixd routes GET /v1/:idPagamento by that shape (docs/bill-payments.md).
  idPagamento: '999999999',
  idContaSimplificada: 'naoexiste',
  identificadorWebhook: 'naoexiste',
  nome_arquivo: 'naoexiste.ret',
  identificador: 'naoexiste',
};

/**
 * What each method answers for the minimal input sent, and why. Every method not named here answers 400: its
 * minimal body or query (`{}`, no filters) is refused by the schema or a business rule, naming the field.
 */
const EXPECTED = {
  /** Served as sent: reads and lists that need no input, creations that need none (an EVP key, a recurrence location, an SFTP key), and the recurrence location the run created (its id is 1). */
  served: [
    'listPlans',
    'pixCreateEvp',
    'pixListEvp',
    'getAccountBalance',
    'listAccountConfig',
    'pixKeysBucket',
    'pixCreateLocationRecurrenceAutomatic',
    'pixDetailLocationRecurrenceAutomatic',
    'pixUnlinkLocationRecurrenceAutomatic',
    'ofListParticipants',
    'accountListWebhook',
    'listStatementFiles',
    'listStatementRecurrences',
    'createSftpKey',
  ],
  /** The placeholder id names no resource of the account (or nothing is configured yet): a resource 404, not a missing route. */
  unknownResource: [
    'settleCarnet',
    'detailCharge',
    'updateChargeMetadata',
    'cancelCharge',
    'detailCarnet',
    'updateCarnetMetadata',
    'getNotification',
    'deletePlan',
    'detailSubscription',
    'cancelSubscription',
    'updateSubscriptionMetadata',
    'cancelCarnet',
    'cancelCarnetParcel',
    'updateSubscription',
    'settleCharge',
    'settleCarnetParcel',
    'refundCard',
    'pixUpdateDueCharge',
    'pixDetailDueCharge',
    'detailReport',
    'pixUpdateCharge',
    'pixDetailCharge',
    'pixDetailReceived',
    'pixSendDetail',
    'pixDetailDevolution',
    'pixDetailWebhook',
    'pixDeleteWebhook',
    'pixDetailLocation',
    'pixGenerateQRCode',
    'pixUnlinkTxidLocation',
    'pixDeleteEvp',
    'pixSplitDetailCharge',
    'pixSplitLinkCharge',
    'pixSplitUnlinkCharge',
    'pixSplitDetailDueCharge',
    'pixSplitLinkDueCharge',
    'pixSplitUnlinkDueCharge',
    'pixSplitDetailConfig',
    'pixSendDetailId',
    'pixDetailDueChargeBatch',
    'pixDetailRecurrenceAutomatic',
    'pixUpdateRecurrenceAutomatic',
    'pixDetailRequestRecurrenceAutomatic',
    'pixDetailAutomaticCharge',
    'pixRetryRequestAutomaticCharge',
    'pixListWebhookRecurrenceAutomatic',
    'pixDeleteWebhookRecurrenceAutomatic',
    'pixListWebhookAutomaticCharge',
    'pixDeleteWebhookAutomaticCharge',
    'ofConfigDetail',
    'ofCancelSchedulePix',
    'ofCancelRecurrencyPix',
    'ofReplaceRecurrencyPixParcel',
    'payDetailPayment',
    'getAccountCredentials',
    'accountDeleteWebhook',
    'accountDetailWebhook',
    'createAccountCertificate',
    'getStatementFile',
  ],
} as const;

const expectedStatus = (name: string): number | '2xx' =>
  (EXPECTED.served as readonly string[]).includes(name)
    ? '2xx'
    : (EXPECTED.unknownResource as readonly string[]).includes(name)
      ? 404
      : 400;

/** Methods of the plans/subscriptions/links family still being built (issue 31): they are not served yet. */
const NOT_YET_IMPLEMENTED: readonly string[] = [];

describe('official Node SDK: every method reaches pixd', () => {
  let svc: TestService;
  let restore: () => void;
  let efi: EfiPay;
  let lastStatus = 0;
  /** Every URL the SDK requested (before pointSdkAt rewrote it) and its last 2xx status. */
  const statusByUrl = new Map<string, number>();

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    // The SDK's named errors carry no status: the HTTP status of its last request is read here.
    const pointed = axios.defaults.adapter as AxiosAdapter;
    axios.defaults.adapter = async (config) => {
      try {
        const response = await pointed(config);
        lastStatus = response.status;
        if (config.url) statusByUrl.set(config.url, response.status);
        return response;
      } catch (error) {
        lastStatus = (error as { response?: { status: number } }).response?.status ?? 0;
        throw error;
      }
    };
    efi = sdkFor(svc);
  });
  after(async () => {
    restore?.();
    await svc?.close();
  });

  it('answers every endpoint method with a defined status, never a missing route nor a 5xx', async () => {
    const { endpoints, tokenUrls } = sdkEndpoints(sdkConstants());
    const names = endpoints.map((e) => e.name);
    assert.deepEqual(
      [...EXPECTED.served, ...EXPECTED.unknownResource, ...NOT_YET_IMPLEMENTED].filter((n) => !names.includes(n)),
      [],
      'the table names only methods of the SDK',
    );
    const calls = efi as unknown as Record<string, (params: object, body?: object) => Promise<unknown>>;
    const rows: { name: string; status: number; why: string }[] = [];
    const missing: string[] = [];
    for (const e of endpoints) {
      const params = Object.fromEntries((e.route.match(/:\w+/g) ?? []).map((p) => [p.slice(1), PARAMS[p.slice(1)]]));
      let body: unknown = {};
      lastStatus = 0;
      await calls[e.name](params, {}).catch((error: unknown) => {
        body = error;
      });
      const status = lastStatus;
      const routeMissing = status === 404 && /Rota \w+ \S+ não encontrada/.test(JSON.stringify(body));
      if (routeMissing) missing.push(e.name);
      const expected = expectedStatus(e.name);
      const asExpected = expected === '2xx' ? status >= 200 && status < 300 : status === expected;
      rows.push({
        name: e.name,
        status,
        why: routeMissing
          ? 'ROUTE MISSING'
          : asExpected
            ? 'as expected'
            : `expected ${expected}: ${JSON.stringify(body).slice(0, 200)}`,
      });
    }
    console.log(rows.map((r) => `${r.name.padEnd(40)} ${r.status} ${r.why}`).join('\n'));
    // Each family's `authorize`: the SDK got its token there (else none of the family's calls had an answer).
    const tokens = tokenUrls.map((url) => ({ url, status: statusByUrl.get(url) }));
    console.log(tokens.map((t) => `authorize ${t.url} ${t.status}`).join('\n'));
    assert.deepEqual(
      tokens.filter((t) => t.status !== 200),
      [],
    );
    console.log(
      `${endpoints.length + tokenUrls.length} SDK methods (${tokenUrls.length} of them authorize); not yet implemented (issue 31): ${NOT_YET_IMPLEMENTED.join(', ') || 'none'}`,
    );
    assert.deepEqual(missing, NOT_YET_IMPLEMENTED);
    assert.deepEqual(
      rows.filter((r) => r.why !== 'as expected' && !NOT_YET_IMPLEMENTED.includes(r.name)),
      [],
    );
  });
});
