/** Linking configurations to charges, reading them, and what the payment engine does with a linked charge. */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { PROBLEM_TYPE_BASE } from '../../src/platform/errors.ts';
import { configBody, distributionOf, newBeneficiary, type Beneficiary } from './split-fixtures.ts';

const DUE = '2099-12-31';
let serial = 0;
const newTxid = () => `split${String(++serial).padStart(4, '0')}`.padEnd(30, '0');

describe('split linked to charges, and paid', () => {
  let svc: TestService;
  let receiver: Party;
  let token: string;
  let a: Beneficiary;
  let b: Beneficiary;
  const call = (method: string, path: string, body?: unknown) => receiver.http.request(method, path, { token, body });
  const saldoOf = async (party: Party) =>
    (await party.http.request('GET', '/v2/gn/saldo/', { token: await party.token() })).body.saldo as string;
  const createCob = async (original: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v2/cob', cobBody(receiver.chaves[0], original, extra));
    assert.equal(res.status, 201, res.text);
    return res.body.txid as string;
  };
  const createCobV = async (valor: Record<string, unknown>) => {
    const txid = newTxid();
    const res = await call('PUT', `/v2/cobv/${txid}`, {
      calendario: { dataDeVencimento: DUE },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor,
      chave: receiver.chaves[0],
    });
    assert.equal(res.status, 201, res.text);
    return txid;
  };
  const createConfig = async (body: unknown) => {
    const res = await call('POST', '/v2/gn/split/config', body);
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const link = (kind: 'cob' | 'cobv', txid: string, configId: string) =>
    call('PUT', `/v2/gn/split/${kind}/${txid}/vinculo/${configId}`);
  const pay = (body: Record<string, unknown>) => call('POST', '/sandbox/pix/pay', body);
  const paid = async (body: Record<string, unknown>) => {
    const res = await pay(body);
    assert.equal(res.status, 201, res.text);
    return res.body.endToEndId as string;
  };

  before(async () => {
    svc = await startTestService();
  });
  afterEach(async () => {
    const sql = svc.service.ctx.db;
    await assertLedgerBalanced(sql);
    for (const party of [receiver, a.party, b.party])
      await assertBalanceMatchesLines(sql, party.accountId, await saldoOf(party));
  });
  after(() => svc.close());

  /** Every test starts from empty balances: a new receiver and new beneficiaries. */
  const fresh = async () => {
    receiver = await svc.newParty();
    token = await receiver.token();
    [a, b] = await Promise.all([newBeneficiary(svc), newBeneficiary(svc)]);
  };

  it('links with 204, reads the charge with config, and divides the payment in the same transaction', async () => {
    await fresh();
    const configId = await createConfig(
      configBody(
        'porcentagem',
        '60.00',
        [
          [a, '15.00'],
          [b, '25.00'],
        ],
        { descricao: 'Marketplace' },
      ),
    );
    const txid = await createCob('100.00');
    const unlinkedRead = await call('GET', `/v2/gn/split/cob/${txid}`);
    assert.equal(unlinkedRead.status, 200);
    assert.equal(unlinkedRead.body.config, undefined, 'no config before linking');
    const linked = await link('cob', txid, configId);
    assert.equal(linked.status, 204, linked.text);
    assert.equal(linked.text, '');
    const read = await call('GET', `/v2/gn/split/cob/${txid}`);
    assert.deepEqual(read.body.config, { id: configId, status: 'ATIVA', revisao: 0, descricao: 'Marketplace' });
    const plain = (await call('GET', `/v2/cob/${txid}`)).body;
    const { config, ...rest } = read.body;
    assert.deepEqual(rest, plain, 'the split read is the charge read plus config');

    const e2e = await paid({ txid });
    assert.deepEqual(
      (await distributionOf(svc.service.ctx.db, e2e)).map((s) => s.amountCents),
      [6000, 1500, 2500],
    );
    assert.deepEqual(
      [await saldoOf(receiver), await saldoOf(a.party), await saldoOf(b.party)],
      ['60.00', '15.00', '25.00'],
    );
    assert.equal((await call('GET', `/v2/gn/split/cob/${txid}`)).body.status, 'CONCLUIDA');
  });

  it('rounds by largest remainder: leftover cents go to the largest fractions, ties to the receiver then in order', async () => {
    await fresh();
    const halves = await createConfig(
      configBody('porcentagem', '50.00', [
        [a, '25.00'],
        [b, '25.00'],
      ]),
    );
    const tie = await createConfig(
      configBody('porcentagem', '0.00', [
        [a, '50.00'],
        [b, '50.00'],
      ]),
    );
    const thirds = await createConfig(
      configBody('porcentagem', '33.33', [
        [a, '33.33'],
        [b, '33.34'],
      ]),
    );
    const cases: [string, string, number[]][] = [
      [halves, '10.01', [501, 250, 250]], // 5.005 / 2.5025 / 2.5025: the receiver's .5 is the largest fraction
      [tie, '10.03', [0, 502, 501]], // 5.015 each: a tie, the earlier beneficiary gets the cent
      [thirds, '10.01', [334, 333, 334]], // 333.6333 / 333.6333 / 333.7334 cents: two left, to b (.7334), then the tie to the receiver
    ];
    for (const [configId, original, expected] of cases) {
      const txid = await createCob(original);
      assert.equal((await link('cob', txid, configId)).status, 204);
      const shares = await distributionOf(svc.service.ctx.db, await paid({ txid }));
      assert.deepEqual(
        shares.map((s) => s.amountCents),
        expected,
        `${original} by ${configId}`,
      );
      assert.deepEqual(
        shares.map((s) => s.accountId),
        [receiver.accountId, a.party.accountId, b.party.accountId],
      );
    }
  });

  it('refuses refunds of a split-paid Pix, and allows them again for a charge unlinked before payment', async () => {
    await fresh();
    const configId = await createConfig(configBody('porcentagem', '50.00', [[a, '50.00']]));
    const splitTxid = await createCob('40.00');
    await link('cob', splitTxid, configId);
    const e2e = await paid({ txid: splitTxid });
    const refund = await call('PUT', `/v2/pix/${e2e}/devolucao/R1`, { valor: '1.00' });
    assert.equal(refund.status, 400);
    assert.equal(refund.body.type, `${PROBLEM_TYPE_BASE}/PixDevolucaoInvalida`);
    assert.match(refund.body.detail, /split/);
    const viaProvider = await call('PUT', `/v2/gn/pix/${e2e}/devolucao/R1`, { valor: '1.00' });
    assert.equal(viaProvider.status, 400, 'the same guard on the provider path');
    assert.match(viaProvider.body.mensagem, /split/);

    const unlinkedTxid = await createCob('30.00');
    await link('cob', unlinkedTxid, configId);
    const unlinked = await call('DELETE', `/v2/gn/split/cob/${unlinkedTxid}/vinculo`);
    assert.equal(unlinked.status, 200, unlinked.text);
    assert.equal(unlinked.body.txid, unlinkedTxid);
    assert.equal(unlinked.body.config, undefined, 'the answer is the charge as now read');
    const again = await call('DELETE', `/v2/gn/split/cob/${unlinkedTxid}/vinculo`);
    assert.equal(again.status, 404);
    assert.equal(again.body.type, `${PROBLEM_TYPE_BASE}/SplitVinculoNaoEncontrado`);
    const plainE2e = await paid({ txid: unlinkedTxid });
    assert.deepEqual(await distributionOf(svc.service.ctx.db, plainE2e), []);
    assert.equal((await call('PUT', `/v2/pix/${plainE2e}/devolucao/R1`, { valor: '1.00' })).status, 201);
    await waitFor(
      async () => (await call('GET', `/v2/pix/${plainE2e}/devolucao/R1`)).body.status === 'DEVOLVIDO',
      'refund settlement',
    );
    assert.deepEqual([await saldoOf(receiver), await saldoOf(a.party)], ['49.00', '20.00']);
    const afterPaid = await call('DELETE', `/v2/gn/split/cob/${splitTxid}/vinculo`);
    assert.equal(afterPaid.status, 400, 'a paid charge keeps its division');
    assert.equal(afterPaid.body.type, `${PROBLEM_TYPE_BASE}/SplitVinculoInvalido`);
  });

  it('links only active charges, of the right kind, to existing configurations of the caller', async () => {
    await fresh();
    const configId = await createConfig(configBody('porcentagem', '50.00', [[a, '50.00']]));
    const paidTxid = await createCob('20.00');
    await paid({ txid: paidTxid });
    const notActive = await link('cob', paidTxid, configId);
    assert.equal(notActive.status, 400);
    assert.equal(notActive.body.type, `${PROBLEM_TYPE_BASE}/SplitVinculoInvalido`);
    const removed = await createCob('20.00');
    await call('PATCH', `/v2/cob/${removed}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    assert.equal((await link('cob', removed, configId)).status, 400);
    const active = await createCob('20.00');
    const noConfig = await link('cob', active, 'NoSuchConfig');
    assert.equal(noConfig.status, 404);
    assert.equal(noConfig.body.type, `${PROBLEM_TYPE_BASE}/SplitConfigNaoEncontrada`);
    const noCharge = await link('cob', newTxid(), configId);
    assert.equal(noCharge.status, 404);
    assert.equal(noCharge.body.type, `${PROBLEM_TYPE_BASE}/CobNaoEncontrado`);
    const cobv = await createCobV({ original: '20.00' });
    assert.equal(
      (await link('cob', cobv, configId)).body.type,
      `${PROBLEM_TYPE_BASE}/CobNaoEncontrado`,
      'a due charge is not an immediate one',
    );
    assert.equal((await link('cobv', active, configId)).body.type, `${PROBLEM_TYPE_BASE}/CobVNaoEncontrada`);
    assert.equal(
      (await link('cob', 'short', configId)).body.type,
      `${PROBLEM_TYPE_BASE}/SplitVinculoInvalido`,
      'bad txid',
    );
    const stranger = await svc.newParty();
    const theirs = await stranger.http.request('PUT', `/v2/gn/split/cob/${active}/vinculo/${configId}`, {
      token: await stranger.token(),
    });
    assert.equal(theirs.status, 404, 'neither the charge nor the configuration is theirs');
    assert.equal((await call('GET', `/v2/gn/split/cob/${newTxid()}`)).status, 404);
  });

  it('checks fixed shares against the charge when linking and against the Pix when paid', async () => {
    await fresh();
    const fixed = await createConfig(
      configBody('fixo', '50.00', [
        [a, '5.00'],
        [b, '10.00'],
      ]),
    );
    const small = await createCob('64.99');
    const tooSmall = await link('cob', small, fixed);
    assert.equal(tooSmall.status, 400);
    assert.match(tooSmall.body.detail, /65\.00.*64\.99/);
    const exact = await createCob('65.00');
    assert.equal((await link('cob', exact, fixed)).status, 204);
    assert.deepEqual(
      (await distributionOf(svc.service.ctx.db, await paid({ txid: exact }))).map((s) => s.amountCents),
      [5000, 500, 1000],
    );
    const larger = await createCob('100.00');
    await link('cob', larger, fixed);
    assert.deepEqual(
      (await distributionOf(svc.service.ctx.db, await paid({ txid: larger }))).map((s) => s.amountCents),
      [8500, 500, 1000],
      'the receiver keeps the rest',
    );

    // The payer chooses the amount: nothing to check when linking; a Pix below the fixed shares is refused.
    const open = await createCob('0.00', { valor: { original: '0.00', modalidadeAlteracao: 1 } });
    assert.equal((await link('cob', open, fixed)).status, 204);
    const below = await pay({ txid: open, valor: '64.99' });
    assert.equal(below.status, 400);
    assert.equal(below.body.violacoes[0].razao, 'split_excede_valor');
    assert.equal((await call('GET', `/v2/cob/${open}`)).body.status, 'ATIVA', 'the refused Pix changed nothing');
    assert.deepEqual(
      (await distributionOf(svc.service.ctx.db, await paid({ txid: open, valor: '70.00' }))).map((s) => s.amountCents),
      [5500, 500, 1000],
    );
    assert.deepEqual(
      [await saldoOf(receiver), await saldoOf(a.party), await saldoOf(b.party)],
      ['190.00', '15.00', '30.00'],
    );
  });

  it('pins the revision current when linking; linking again moves to the latest', async () => {
    await fresh();
    const path = '/v2/gn/split/config/pinned';
    assert.equal((await call('PUT', path, configBody('porcentagem', '90.00', [[a, '10.00']]))).status, 201);
    const first = await createCob('100.00');
    const second = await createCob('100.00');
    await link('cob', first, 'pinned');
    await link('cob', second, 'pinned');
    assert.equal(
      (await call('PUT', path, configBody('porcentagem', '20.00', [[b, '80.00']], { descricao: 'Revisada' }))).status,
      201,
    );
    assert.equal((await call('GET', `/v2/gn/split/cob/${first}`)).body.config.revisao, 0);
    await link('cob', second, 'pinned');
    assert.deepEqual((await call('GET', `/v2/gn/split/cob/${second}`)).body.config, {
      id: 'pinned',
      status: 'ATIVA',
      revisao: 1,
      descricao: 'Revisada',
    });
    const e1 = await distributionOf(svc.service.ctx.db, await paid({ txid: first }));
    const e2 = await distributionOf(svc.service.ctx.db, await paid({ txid: second }));
    assert.deepEqual(e1, [
      { accountId: receiver.accountId, amountCents: 9000 },
      { accountId: a.party.accountId, amountCents: 1000 },
    ]);
    assert.deepEqual(e2, [
      { accountId: receiver.accountId, amountCents: 2000 },
      { accountId: b.party.accountId, amountCents: 8000 },
    ]);
  });

  it('due charges: link answers 200 with recebedor and config; the amount due that day is divided', async () => {
    await fresh();
    const configId = await createConfig(configBody('porcentagem', '70.00', [[a, '30.00']]));
    const txid = await createCobV({
      original: '200.00',
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2099-11-30', valorPerc: '20.00' }] },
    });
    const linked = await link('cobv', txid, configId);
    assert.equal(linked.status, 200, linked.text);
    const { rows } = await svc.service.ctx.db.query<{
      nome: string;
      documento: string;
      logradouro: string;
      cidade: string;
      uf: string;
      cep: string;
    }>('select nome, documento, logradouro, cidade, uf, cep from accounts where id = $1', [receiver.accountId]);
    const { documento, ...holder } = rows[0];
    assert.deepEqual(linked.body.recebedor, { cnpj: documento, ...holder }, 'the receiver with its address');
    assert.deepEqual(linked.body.config, { id: configId, status: 'ATIVA', revisao: 0, descricao: 'Split de teste' });
    const read = await call('GET', `/v2/gn/split/cobv/${txid}`);
    assert.deepEqual(read.body, linked.body);
    const { config, ...plain } = read.body;
    assert.deepEqual(plain, (await call('GET', `/v2/cobv/${txid}`)).body);
    const e2e = await paid({ txid });
    assert.deepEqual(
      (await distributionOf(svc.service.ctx.db, e2e)).map((s) => s.amountCents),
      [12600, 5400],
      '180.00 after the 20.00 discount',
    );
    assert.equal((await call('PUT', `/v2/pix/${e2e}/devolucao/R1`, { valor: '1.00' })).status, 400);
    assert.equal((await call('DELETE', `/v2/gn/split/cobv/${txid}/vinculo`)).status, 400);

    const fixed = await createConfig(configBody('fixo', '0.00', [[b, '190.00']]));
    const discounted = await createCobV({
      original: '200.00',
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2099-11-30', valorPerc: '20.00' }] },
    });
    assert.equal((await link('cobv', discounted, fixed)).status, 200, 'the original amount fits');
    const refused = await pay({ txid: discounted });
    assert.equal(refused.body.violacoes[0].razao, 'split_excede_valor', '180.00 due today does not');
    const unlinked = await call('DELETE', `/v2/gn/split/cobv/${discounted}/vinculo`);
    assert.equal(unlinked.status, 200);
    assert.equal(unlinked.body.config, undefined);
    assert.ok(unlinked.body.recebedor);
    await paid({ txid: discounted });
    assert.deepEqual(
      [await saldoOf(receiver), await saldoOf(a.party), await saldoOf(b.party)],
      ['306.00', '54.00', '0.00'],
    );
  });

  it('one configuration serves many charges, including sandbox auto-settlement', async () => {
    await fresh();
    const configId = await createConfig(
      configBody('porcentagem', '50.00', [
        [a, '30.00'],
        [b, '20.00'],
      ]),
    );
    const txids = await Promise.all(['10.00', '0.07', '11.11'].map((v) => createCob(v)));
    for (const txid of txids) assert.equal((await link('cob', txid, configId)).status, 204);
    await paid({ txid: txids[2] });
    // 10.00 and 0.07 are at most 10.00: the sandbox pays them a moment after creation, through the engine.
    await waitFor(async () => {
      const { rows } = await svc.service.ctx.db.query<{ n: number }>(
        'select count(*)::int as n from split_distributions d join received_pix p on p.id = d.received_pix_id where p.account_id = $1',
        [receiver.accountId],
      );
      return rows[0].n === 3;
    }, 'auto-settlement of the small charges');
    // 10.00 -> 500/300/200; 0.07 -> 3.5/2.1/1.4 -> 4/2/1; 11.11 -> 555.5/333.3/222.2 -> 556/333/222 (the receiver's .5 wins).
    assert.deepEqual(
      [await saldoOf(receiver), await saldoOf(a.party), await saldoOf(b.party)],
      ['10.60', '6.35', '4.23'],
    );
  });

  it("divides Pix received through a static QR code carrying the configuration's txid", async () => {
    await fresh();
    const created = await call(
      'POST',
      '/v2/gn/split/config',
      configBody('porcentagem', '75.00', [[a, '25.00']], { txid: 'LOJA42' }),
    );
    assert.equal(created.status, 201, created.text);
    const qr = await call('POST', '/v2/gn/qrcodes/estatico', {
      chave: receiver.chaves[0],
      valor: '40.00',
      txid: 'LOJA42',
    });
    assert.equal(qr.status, 201, qr.text);
    const e2e = await paid({ pixCopiaECola: qr.body.qrcode });
    assert.deepEqual(
      (await distributionOf(svc.service.ctx.db, e2e)).map((s) => s.amountCents),
      [3000, 1000],
    );
    assert.equal((await call('PUT', `/v2/pix/${e2e}/devolucao/R1`, { valor: '1.00' })).status, 400);
    const other = await call('POST', '/v2/gn/qrcodes/estatico', {
      chave: receiver.chaves[0],
      valor: '5.00',
      txid: 'OUTRO',
    });
    assert.deepEqual(
      await distributionOf(svc.service.ctx.db, await paid({ pixCopiaECola: other.body.qrcode })),
      [],
      'another txid is not split',
    );
    assert.deepEqual([await saldoOf(receiver), await saldoOf(a.party)], ['35.00', '10.00']);
  });
});
