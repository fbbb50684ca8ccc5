/**
 * Issue 26 item 2: tenant C's receiver accepts TCP connections and never answers (not even the TLS handshake)
 * while C keeps paying; tenant D's webhooks must not queue behind it. D is timed from the payment's answer to
 * its receiver's call, while C's payments go on beside it; C's receiver, failing every call, is backed off
 * instead of being called for each of its webhooks.
 */
// suite: serial (measures latency while a receiver hangs): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { setWebhookSettings, resetWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { LIMITS } from '../../src/platform/limits.ts';

/** C's webhooks queued before D is timed, then C's payments at once beside each of D's. */
const HANGING_BACKLOG = 60;
const TIMED_DELIVERIES = 20;
/** While D is timed (a few seconds) C's receiver is closed, doubling from 1 s, and probed once after each. */
const PROBES_BOUND = 4;
/** The goal. */
const P99_BOUND_MS = 1_000;

describe('faults: a silent receiver slows only its own tenant', () => {
  let svc: TestService;
  let c: Party;
  let d: Party;
  let silent: Receiver;
  let healthy: Receiver;

  before(async () => {
    // The production deadlines: connect (TCP + TLS) 5 s within a 10 s call.
    setWebhookSettings({ deliveryTimeoutMs: LIMITS.webhookDeliveryTimeoutMs });
    svc = await startTestService();
    [c, d] = [await svc.newParty(), await svc.newParty()];
    silent = await Receiver.start({ clientCaPem: svc.caPem });
    healthy = await Receiver.start({ clientCaPem: svc.caPem });
    await webhookApi(c).registerPix(`${silent.url}/c`);
    await webhookApi(d).registerPix(`${healthy.url}/d`);
    silent.behaviour = 'silent';
  });
  after(async () => {
    await silent.close();
    await healthy.close();
    await svc.close();
    resetWebhookSettings();
  });

  it("keeps D's p99 under 1 s while C's receiver hangs and C keeps sending", async () => {
    const cApi = webhookApi(c);
    for (let sent = 0; sent < HANGING_BACKLOG; sent += 20)
      await Promise.all(Array.from({ length: 20 }, () => cApi.payNewCharge('11.00')));
    // Its calls failed within the connect deadline (5 s, not the 10 s of the call), which backed it off.
    await waitFor(async () => {
      const queued = await cApi.deliveries('webhook.pix');
      return queued.length > 0 && queued.every((delivery) => delivery.ultimoErro);
    }, "C's calls to fail");
    const connectionsBefore = silent.connections;

    const dApi = webhookApi(d);
    const lagsMs: number[] = [];
    for (let n = 0; n < TIMED_DELIVERIES; n++) {
      const [{ pix, answeredAtMs }] = await Promise.all([
        dApi.payNewCharge('12.00').then((paid) => ({ pix: paid, answeredAtMs: Date.now() })),
        cApi.payNewCharge('11.00'),
      ]);
      await healthy.waitForCalls(n + 1, '/d/pix');
      const mine = healthy.callsTo('/d/pix').find((call) => call.body.pix[0].endToEndId === pix.endToEndId);
      assert.ok(mine, `D's webhook of ${pix.endToEndId}`);
      lagsMs.push(mine.atMs - answeredAtMs);
    }
    lagsMs.sort((a, b) => a - b);
    const p99 = lagsMs[Math.ceil(lagsMs.length * 0.99) - 1];
    assert.ok(p99 <= P99_BOUND_MS, `D's p99 ${p99} ms (lags ${lagsMs.join(', ')})`);
    // Backed off: C's receiver is probed one call at a time, not called once per webhook.
    const duringTiming = silent.connections - connectionsBefore;
    assert.ok(duringTiming <= PROBES_BOUND, `${duringTiming} connections to C's receiver while D was timed`);
  });
});
