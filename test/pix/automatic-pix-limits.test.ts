import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { overLimit } from '../helpers/burst.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const TXID = 'LimitCobr00000000000000000001';

describe('automatic Pix: the 500 requests per second limit (interface, Limits)', () => {
  let svc: TestService;
  // A frozen wall clock: each burst falls in one window.
  const wallMs = Date.UTC(2026, 0, 1);
  before(async () => {
    svc = await startTestService({}, { wallClockMs: () => wallMs });
  });
  after(() => svc.close());

  for (const [method, path] of [
    ['POST', '/v2/rec'],
    ['POST', '/v2/solicrec'],
    ['PUT', `/v2/cobr/${TXID}`],
    ['POST', '/v2/cobr'],
    ['POST', `/v2/cobr/${TXID}/retentativa/2099-01-02`],
  ] as const) {
    it(`${method} ${path}: the 501st request in one second is 429`, async () => {
      const party = await svc.newParty();
      const token = await party.token();
      // Invalid bodies still count: the limit is checked before validation.
      const { statuses, retryAfter } = await overLimit(() => party.http.request(method, path, { token, body: {} }));
      assert.equal(statuses.filter((s) => s === 429).length, 1, `statuses: ${[...new Set(statuses)]}`);
      assert.ok(statuses.filter((s) => s !== 429).every((s) => s === 400 || s === 404));
      assert.deepEqual(retryAfter, ['1']);
    });
  }
});
