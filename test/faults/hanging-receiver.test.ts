/**
 * One tenant's receiver hangs until the delivery timeout while its webhooks pile up; another tenant's
 * deliveries must not notice: they are timed from the payment's answer to the receiver's call.
 */
// suite: serial (measures latency while a receiver hangs): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { setWebhookSettings, resetWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { WEBHOOK_LANES } from '../../src/platform/webhooks/dispatcher.ts';

/** Enough of the hanging tenant's deliveries to fill every lane's batch the way lanes used to claim. */
const HANGING_DELIVERIES = WEBHOOK_LANES.count * WEBHOOK_LANES.batchSize;
const TIMED_DELIVERIES = 30;
/** The test's bound; the bench measures the real p99 (goal < 100 ms). */
const P99_BOUND_MS = 1_000;

describe('faults: a hanging receiver slows only itself', () => {
  let svc: TestService;
  let slow: Party;
  let fast: Party;
  let hanging: Receiver;
  let healthy: Receiver;

  before(async () => {
    setWebhookSettings({ deliveryTimeoutMs: 8_000 });
    svc = await startTestService();
    [slow, fast] = [await svc.newParty(), await svc.newParty()];
    hanging = await Receiver.start({ clientCaPem: svc.caPem });
    healthy = await Receiver.start({ clientCaPem: svc.caPem });
    await webhookApi(slow).registerPix(`${hanging.url}/slow`);
    await webhookApi(fast).registerPix(`${healthy.url}/fast`);
    hanging.behaviour = 'hang';
  });
  after(async () => {
    await hanging.close();
    await healthy.close();
    await svc.close();
    resetWebhookSettings();
  });

  it("keeps another tenant's delivery latency low while one receiver hangs", async () => {
    const slowApi = webhookApi(slow);
    for (let sent = 0; sent < HANGING_DELIVERIES; sent += 25)
      await Promise.all(Array.from({ length: 25 }, () => slowApi.payNewCharge('11.00')));
    await hanging.waitForCalls(1, '/slow/pix');

    const fastApi = webhookApi(fast);
    const lagsMs: number[] = [];
    for (let n = 0; n < TIMED_DELIVERIES; n++) {
      const pix = await fastApi.payNewCharge('12.00');
      const answeredAtMs = Date.now();
      const [call] = await healthy.waitForCalls(n + 1, '/fast/pix');
      const mine = healthy.callsTo('/fast/pix').find((c) => (c.body as any).pix[0].endToEndId === pix.endToEndId);
      assert.ok(mine ?? call);
      lagsMs.push((mine ?? call).atMs - answeredAtMs);
    }
    lagsMs.sort((a, b) => a - b);
    const p99 = lagsMs[Math.ceil(lagsMs.length * 0.99) - 1];
    assert.ok(p99 < P99_BOUND_MS, `p99 ${p99} ms (lags ${lagsMs.join(', ')})`);
  });
});
