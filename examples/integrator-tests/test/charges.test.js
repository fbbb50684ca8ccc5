// @ts-check
// An integrator's test: a sandbox pixd per file, the official SDK pointed at it, the payer and the clock played
// through pixd's sandbox controls. Nothing here knows pixd's internals.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import EfiPay from 'sdk-node-apis-efi';
import { startPixd } from 'pixd/testing';

describe('charging with the official SDK against pixd', () => {
  /** @type {import('pixd/testing').Pixd} */
  let pixd;
  /** @type {() => void} */
  let unpoint;
  /** @type {any} */
  let efi;

  before(async () => {
    pixd = await startPixd();
    unpoint = await pixd.pointSdk();
    // The SDK declares its types as CommonJS, where the class is `.default`; its ES module build, which this
    // import loads, exports the class itself.
    efi = new /** @type {any} */ (EfiPay)(pixd.sdkOptions);
  });
  after(async () => {
    unpoint?.();
    await pixd?.stop();
  });

  it('creates a charge, has it paid by the sandbox payer and reads it back paid', async () => {
    const cob = await efi.pixCreateImmediateCharge(
      {},
      { calendario: { expiracao: 3600 }, valor: { original: '25.00' }, chave: pixd.credentials.chaves[0] },
    );
    assert.equal(cob.status, 'ATIVA');
    const pix = await pixd.sandbox.pay(cob.txid);
    assert.equal(pix.valor, '25.00');
    const paid = await efi.pixDetailCharge({ txid: cob.txid });
    assert.equal(paid.status, 'CONCLUIDA');
    assert.equal(paid.pix[0].endToEndId, pix.endToEndId);
  });

  it('expires a charge when the sandbox clock passes its expiry', async () => {
    const cob = await efi.pixCreateImmediateCharge(
      {},
      { calendario: { expiracao: 60 }, valor: { original: '30.00' }, chave: pixd.credentials.chaves[0] },
    );
    await pixd.sandbox.clock.advance('2m');
    await assert.rejects(pixd.sandbox.pay(cob.txid), (/** @type {any} */ error) => error.status >= 400);
  });

  it('refuses a charge on a key that is not the account’s, with the interface’s error', async () => {
    await assert.rejects(
      efi.pixCreateImmediateCharge({}, { calendario: { expiracao: 3600 }, valor: { original: '1.00' }, chave: 'nobody@example.com' }),
      (/** @type {any} */ error) => error.nome !== undefined || error.title !== undefined,
    );
  });
});

describe('each test from a known state', () => {
  /** @type {import('pixd/testing').Pixd} */
  let pixd;
  before(async () => {
    pixd = await startPixd();
    // The state every test starts from: one paid charge, saved once.
    const cob = await pixd.api.pix('POST', '/v2/cob', {
      calendario: { expiracao: 3600 },
      valor: { original: '50.00' },
      chave: pixd.credentials.chaves[0],
    });
    await pixd.sandbox.pay(String(cob.txid));
    await pixd.snapshots.save('paid_once');
  });
  beforeEach(() => pixd.snapshots.restore('paid_once'));
  after(() => pixd?.stop());

  const balance = async () => (await pixd.api.pix('GET', '/v2/gn/saldo')).saldo;

  it('receives more on top of the saved state', async () => {
    await pixd.sandbox.pay(pixd.credentials.chaves[0], { valor: '20.00' });
    assert.equal(await balance(), '70.00');
  });

  it('starts again from the saved state, not from the previous test', async () => {
    assert.equal(await balance(), '50.00');
  });

  it('can also go back to an account as it was created', async () => {
    await pixd.sandbox.reset();
    assert.equal(await balance(), '0.00');
  });
});

describe('a second sandbox in the same run', () => {
  it('starts cheaply from the same template, as a `pixd start` child, with data of its own', async () => {
    const child = await startPixd({ mode: 'child' });
    try {
      const listed = await child.api.pix('GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z');
      assert.deepEqual(listed.cobs, []);
    } finally {
      await child.stop();
    }
  });
});
