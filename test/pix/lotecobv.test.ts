/** Batches of due charges: the eight rules of the interface (Endpoints, Due charges and batches). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { autoPaymentHook } from '../../src/sandbox/settlement.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { insertLocation } from '../../src/pix/loc/store.ts';
import { batchJobHandler, processBatch } from '../../src/pix/lotecobv/process.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { RANGE, batchApi, item, newBatchId, newTxid, pauseJobs, statuses, type BatchApi } from './lotecobv-fixtures.ts';

describe('batches of due charges (lotecobv)', () => {
  let svc: TestService;
  let api: BatchApi;
  let chave: string;

  before(async () => {
    svc = await startTestService();
    api = batchApi(svc.demo);
    chave = svc.demo.chaves[0];
  });
  after(() => svc.close());

  it('accepts a batch with 202, then makes each item CRIADA (a real due charge) or NEGADA with its problem', async () => {
    const id = newBatchId();
    const loc = (await insertLocation(svc.service.ctx.db, svc.demo.accountId, 'cobv', svc.clock.now())).id;
    const [ok, onLoc, noName, badAmount] = ['BatchOk', 'BatchLoc', 'BatchNoName', 'BatchBadAmount'].map(newTxid);
    const put = await api.put(id, [
      item(chave, ok),
      item(chave, onLoc, { loc: { id: loc } }),
      item(chave, noName, { devedor: { cpf: '12345678909' } }),
      item(chave, badAmount, { valor: { original: '1,00' } }),
    ]);
    assert.equal(put.status, 202, put.text);
    assert.equal(put.text, '', 'Bacen: 202 without a body');

    const batch = await api.settled(id);
    assert.equal(batch.id, id);
    assert.equal(batch.descricao, 'Cobranças dos alunos do turno vespertino');
    assert.ok(!Number.isNaN(Date.parse(batch.criacao)));
    assert.deepEqual(
      batch.cobsv.map((c: { txid: string }) => c.txid),
      [ok, onLoc, noName, badAmount],
      'request order',
    );
    assert.deepEqual(statuses(batch), { [ok]: 'CRIADA', [onLoc]: 'CRIADA', [noName]: 'NEGADA', [badAmount]: 'NEGADA' });

    const [created, , denied, invalidSchema] = batch.cobsv;
    assert.equal(created.problema, undefined);
    const charge = await api.cobv(ok);
    assert.equal(charge.status, 200);
    assert.equal(created.criacao, charge.body.calendario.criacao, 'the item shows when its charge was created');
    assert.deepEqual(
      [charge.body.revisao, charge.body.status, charge.body.loc.tipoCob, charge.body.valor.original],
      [0, 'ATIVA', 'cobv', '100.00'],
    );
    assert.equal((await api.cobv(onLoc)).body.loc.id, loc, 'loc.id is honoured');

    assert.equal(denied.criacao, undefined);
    assert.match(denied.problema.type, /\/CobVOperacaoInvalida$/);
    assert.equal(denied.problema.status, 400);
    assert.deepEqual(
      denied.problema.violacoes.map((v: { propriedade: string }) => v.propriedade),
      ['cobv.devedor.nome'],
    );
    assert.deepEqual(
      invalidSchema.problema.violacoes.map((v: { propriedade: string }) => v.propriedade),
      ['cobv.valor.original'],
      'a schema failure denies the item, not the batch',
    );
  });

  it('rule 1: a batch holds 1 to 1000 charges; the envelope is checked before the 202', async () => {
    const cases: [unknown, string][] = [
      [{ descricao: 'vazio', cobsv: [] }, 'loteCobV.cobsv'],
      [
        { descricao: 'grande', cobsv: Array.from({ length: 1001 }, (_, i) => ({ txid: `Over${i}`.padEnd(26, '0') })) },
        'loteCobV.cobsv',
      ],
      [{ cobsv: [item(chave, newTxid('NoDescricao'))] }, 'loteCobV.descricao'],
      [{ descricao: 'sem txid', cobsv: [{ valor: { original: '1.00' } }] }, 'loteCobV.cobsv.0.txid'],
      [{ descricao: 'txid curto', cobsv: [item(chave, 'curto')] }, 'loteCobV.cobsv.0.txid'],
      [{ descricao: 'x', cobsv: [item(chave, newTxid('Extra'))], extra: 1 }, 'loteCobV.extra'],
    ];
    for (const [body, property] of cases) {
      const res = await api.call('PUT', `/v2/lotecobv/${newBatchId()}`, body);
      assert.equal(res.status, 400, property);
      assert.match(res.body.type, /\/LoteCobVOperacaoInvalida$/);
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
        `${property}: ${res.text}`,
      );
    }
    const twice = newTxid('Twice');
    const repeated = await api.put(newBatchId(), [item(chave, twice), item(chave, twice)]);
    assert.equal(repeated.status, 400);
    assert.equal(repeated.body.violacoes[0].propriedade, 'loteCobV.cobsv.1.txid');

    const id = newBatchId();
    const full = Array.from({ length: 1000 }, (_, i) => item(chave, newTxid(`Full${i}x`)));
    const batch = await api.create(id, full);
    assert.equal(batch.cobsv.length, 1000);
    assert.ok(batch.cobsv.every((c: { status: string }) => c.status === 'CRIADA'));
    const listed = await api.call('GET', `/v2/cobv?${RANGE}&loteCobvId=${id}&paginacao.itensPorPagina=1`);
    assert.equal(listed.body.parametros.paginacao.quantidadeTotalDeItens, 1000);
  });

  it('rule 2: a charge created alone never joins a batch, and a batch keeps its charges for good', async () => {
    const alone = newTxid('Alone');
    assert.equal(
      (await api.call('PUT', `/v2/cobv/${alone}`, (({ txid: _t, ...b }) => b)(item(chave, alone)))).status,
      201,
    );
    const joining = await api.put(newBatchId(), [item(chave, newTxid('Fine')), item(chave, alone)]);
    assert.equal(joining.status, 400);
    assert.deepEqual(
      joining.body.violacoes.map((v: { propriedade: string }) => v.propriedade),
      ['loteCobV.cobsv.1.txid'],
    );
    assert.match(joining.body.violacoes[0].razao, /fora de lotes/);

    const first = newBatchId();
    const [member, denied] = [newTxid('Member'), newTxid('DeniedMember')];
    await api.create(first, [item(chave, member), item(chave, denied, { valor: { original: '0.00' } })]);
    for (const txid of [member, denied]) {
      const moving = await api.put(newBatchId(), [item(chave, txid)]);
      assert.equal(moving.status, 400, 'neither a created nor a denied item moves to another batch');
      assert.match(moving.body.violacoes[0].razao, new RegExp(`lote ${first}`));
    }
    const other = newBatchId();
    await api.create(other, [item(chave, newTxid('OtherBatch'))]);
    const revisingThroughOther = await api.patch(other, { cobsv: [{ txid: member, valor: { original: '5.00' } }] });
    assert.equal(revisingThroughOther.status, 400, 'a batch revises only its own charges');
    assert.equal(revisingThroughOther.body.violacoes[0].propriedade, 'loteCobV.cobsv.0.txid');
    // Rule 6: a denied creation is no charge, so its txid is free for a charge created alone; the batch item
    // stays outside it: re-sending the batch is then denied as that txid's second charge.
    assert.equal(
      (await api.call('PUT', `/v2/cobv/${denied}`, (({ txid: _t, ...b }) => b)(item(chave, denied)))).status,
      201,
    );
    const resent = await api.create(first, [item(chave, member), item(chave, denied)]);
    assert.equal(resent.cobsv[1].status, 'NEGADA');
    assert.equal(resent.cobsv[1].problema.violacoes[0].propriedade, 'txid');
    const listed = await api.call('GET', `/v2/cobv?${RANGE}&loteCobvId=${first}`);
    assert.deepEqual(
      listed.body.cobs.map((c: { txid: string }) => c.txid),
      [member],
      "the charge created alone is not the batch's",
    );
  });

  it('rule 3: a PUT re-sends exactly the batch requests; it replaces changed charges and retries denied ones', async () => {
    const id = newBatchId();
    const [a, b, c] = ['ResendA', 'ResendB', 'ResendC'].map(newTxid);
    const original = [item(chave, a), item(chave, b), item(chave, c, { devedor: { cnpj: '12345678000195' } })];
    const createdAt = (await api.create(id, original)).criacao;

    const adding = await api.put(id, [...original, item(chave, newTxid('Added'))]);
    assert.equal(adding.status, 400);
    assert.equal(adding.body.violacoes[0].propriedade, 'loteCobV.cobsv.3.txid');
    const removing = await api.put(id, original.slice(0, 2));
    assert.equal(removing.status, 400);
    assert.equal(removing.body.violacoes[0].propriedade, 'loteCobV.cobsv');
    assert.match(removing.body.violacoes[0].razao, new RegExp(c));

    const same = await api.create(id, [...original].reverse(), 'Mesmas cobranças');
    assert.deepEqual(
      statuses(same),
      { [a]: 'CRIADA', [b]: 'CRIADA', [c]: 'NEGADA' },
      'order does not matter; c is tried again and denied again',
    );
    assert.equal(same.descricao, 'Mesmas cobranças');
    assert.equal(same.criacao, createdAt);
    assert.equal((await api.cobv(a)).body.revisao, 0, 'an unchanged request writes no revision');

    const fixed = await api.create(id, [
      item(chave, a),
      item(chave, b, { valor: { original: '150.00' } }),
      item(chave, c, { devedor: { cnpj: '12345678000195', nome: 'Empresa' } }),
    ]);
    assert.deepEqual(statuses(fixed), { [a]: 'CRIADA', [b]: 'CRIADA', [c]: 'CRIADA' });
    const revised = (await api.cobv(b)).body;
    assert.deepEqual(
      [revised.revisao, revised.valor.original, revised.valor.multa],
      [1, '150.00', undefined],
      'replaced whole: no multa was sent',
    );
    assert.equal((await api.cobv(a)).body.revisao, 0);
    assert.equal((await api.cobv(c)).body.revisao, 0, 'the retried charge is created now, at revision 0');
    assert.equal(
      (await api.call('GET', `/v2/cobv/${b}?revisao=0`)).body.valor.original,
      '100.00',
      'the replaced revision is kept',
    );
  });

  it('rule 4: a PATCH revises some of the batch charges and never adds one', async () => {
    const id = newBatchId();
    const [a, b, denied] = ['PatchA', 'PatchB', 'PatchDenied'].map(newTxid);
    await api.create(id, [item(chave, a), item(chave, b), item(chave, denied, { chave: 'nao-e-minha' })]);

    const patched = await api.patch(id, {
      cobsv: [{ txid: a, calendario: { dataDeVencimento: '2099-06-30' }, valor: { original: '110.00' } }],
    });
    assert.equal(patched.status, 202, patched.text);
    const batch = await api.settled(id);
    assert.deepEqual(
      statuses(batch),
      { [a]: 'CRIADA', [b]: 'CRIADA', [denied]: 'NEGADA' },
      'items not sent keep their state',
    );
    const charge = (await api.cobv(a)).body;
    assert.deepEqual(
      [
        charge.revisao,
        charge.valor.original,
        charge.valor.multa,
        charge.calendario.dataDeVencimento,
        charge.calendario.validadeAposVencimento,
      ],
      [1, '110.00', { modalidade: 2, valorPerc: '2.00' }, '2099-06-30', 30],
      'merged like PATCH /cobv',
    );
    assert.equal((await api.cobv(b)).body.revisao, 0);

    const adding = await api.patch(id, { cobsv: [{ txid: newTxid('NotInBatch'), valor: { original: '1.00' } }] });
    assert.equal(adding.status, 400);
    assert.equal(adding.body.violacoes[0].propriedade, 'loteCobV.cobsv.0.txid');
    const reviveDenied = await api.patch(id, { cobsv: [{ txid: denied, chave }] });
    assert.equal(reviveDenied.status, 400, 'a denied creation has no charge to revise');
    assert.match(reviveDenied.body.violacoes[0].razao, /PUT/);
    assert.equal((await api.patch(id, {})).status, 400, 'an empty PATCH changes nothing');
    const unknown = await api.patch(newBatchId(), { cobsv: [{ txid: a, valor: { original: '1.00' } }] });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.type, /\/NaoEncontrado$/);

    assert.equal((await api.patch(id, { descricao: 'Só a descrição' })).status, 202);
    assert.equal((await api.get(id)).body.descricao, 'Só a descrição');

    const invalidRevision = await api.patch(id, { cobsv: [{ txid: b, valor: { original: '0.00' } }] });
    assert.equal(invalidRevision.status, 202);
    const after = await api.settled(id);
    const itemB = after.cobsv.find((c: { txid: string }) => c.txid === b);
    assert.equal(itemB.status, 'NEGADA', 'the revision is denied');
    assert.equal(itemB.problema.violacoes[0].propriedade, 'cobv.valor.original');
    assert.ok(itemB.criacao, 'the charge itself still exists');
    assert.deepEqual([(await api.cobv(b)).body.revisao, (await api.cobv(b)).body.valor.original], [0, '100.00']);
  });

  it('rule 5: only ATIVA charges are revised; otherwise the item is denied with CobVOperacaoInvalida', async () => {
    const id = newBatchId();
    const txid = newTxid('Removed');
    await api.create(id, [item(chave, txid)]);
    assert.equal((await api.patch(id, { cobsv: [{ txid, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }] })).status, 202);
    assert.equal((await api.settled(id)).cobsv[0].status, 'CRIADA', 'the removal was applied');
    assert.equal((await api.cobv(txid)).body.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');

    assert.equal((await api.patch(id, { cobsv: [{ txid, valor: { original: '120.00' } }] })).status, 202);
    const denied = (await api.settled(id)).cobsv[0];
    assert.equal(denied.status, 'NEGADA');
    assert.match(denied.problema.type, /\/CobVOperacaoInvalida$/);
    assert.equal(denied.problema.violacoes[0].propriedade, 'cobv.status');
    const replaced = await api.create(id, [item(chave, txid, { valor: { original: '130.00' } })]);
    assert.equal(replaced.cobsv[0].problema.violacoes[0].propriedade, 'cobv.status', 'a PUT cannot rewrite it either');
    assert.equal(
      (await api.create(id, [item(chave, txid)])).cobsv[0].status,
      'CRIADA',
      'an unchanged PUT asks nothing of it',
    );
  });

  it('rule 6: a waiting or denied creation is no charge: neither read nor listed; the batch takes one request at a time', async () => {
    const id = newBatchId();
    const [waiting, denied] = [newTxid('Waiting'), newTxid('Denied')];
    const jobs = await pauseJobs(svc);
    try {
      assert.equal(
        (await api.put(id, [item(chave, waiting), item(chave, denied, { valor: { original: '0.00' } })])).status,
        202,
      );
      const pending = (await api.get(id)).body;
      assert.deepEqual(statuses(pending), { [waiting]: 'EM_PROCESSAMENTO', [denied]: 'EM_PROCESSAMENTO' });
      assert.ok(pending.cobsv.every((c: { criacao?: string }) => c.criacao === undefined));
      assert.equal((await api.cobv(waiting)).status, 404);
      const list = await api.call('GET', `/v2/cobv?${RANGE}&loteCobvId=${id}`);
      assert.equal(list.body.cobs.length, 0);
      const again = await api.put(id, [item(chave, waiting), item(chave, denied)]);
      assert.equal(again.status, 400, 'the previous request is still being processed');
      assert.equal(again.body.violacoes[0].propriedade, 'loteCobV');
      assert.equal((await api.patch(id, { descricao: 'x' })).status, 400);
    } finally {
      jobs.resume();
    }
    await api.settled(id);
    assert.equal((await api.cobv(waiting)).status, 200);
    const missing = await api.cobv(denied);
    assert.equal(missing.status, 404);
    assert.match(missing.body.type, /\/CobVNaoEncontrada$/);
    const all = await api.call('GET', `/v2/cobv?${RANGE}&paginacao.itensPorPagina=1000`);
    assert.ok(!all.body.cobs.some((c: { txid: string }) => c.txid === denied), 'not in the plain list either');
  });

  it('rule 7: the due-charge list takes loteCobvId (and Bacen loteCobVId)', async () => {
    const [one, two] = [newBatchId(), newBatchId()];
    const inOne = [newTxid('ListOneA'), newTxid('ListOneB')];
    await api.create(one, [
      ...inOne.map((t) => item(chave, t)),
      item(chave, newTxid('ListOneDenied'), { devedor: { cpf: '11111111111', nome: 'X' } }),
    ]);
    await api.create(two, [item(chave, newTxid('ListTwo'))]);
    for (const name of ['loteCobvId', 'loteCobVId']) {
      const res = await api.call('GET', `/v2/cobv?${RANGE}&${name}=${one}`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.cobs.map((c: { txid: string }) => c.txid),
        inOne,
        name,
      );
    }
    assert.equal((await api.call('GET', `/v2/cobv?${RANGE}&loteCobvId=${two}`)).body.cobs.length, 1);
    assert.equal((await api.call('GET', `/v2/cobv?${RANGE}&loteCobvId=999999`)).body.cobs.length, 0);
    const both = await api.call('GET', `/v2/cobv?${RANGE}&loteCobvId=${one}&loteCobVId=${two}`);
    assert.equal(both.status, 400);
    assert.match(both.body.type, /\/CobVConsultaInvalida$/);
  });

  it('rule 8: errors are LoteCobVOperacaoInvalida with violacoes, AcessoNegado and NaoEncontrado', async () => {
    const unknown = await api.get(newBatchId());
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.type, /\/NaoEncontrado$/);
    const badId = await api.get(Number.NaN);
    assert.equal(badId.status, 400);
    assert.match(badId.body.type, /\/LoteCobVConsultaInvalida$/);
    assert.equal(
      (await api.put(Number.NaN, [item(chave, newTxid('BadId'))])).body.violacoes[0].propriedade,
      'params.id',
    );

    const writer = batchApi(await svc.newParty({ scopes: ['lotecobv.write', 'cob.write'] }));
    const id = newBatchId();
    assert.equal((await writer.put(id, [item((await svc.newParty()).chaves[0], newTxid('WriterOnly'))])).status, 202);
    const read = await writer.get(id);
    assert.equal(read.status, 403);
    assert.match(read.body.type, /\/AcessoNegado$/);
    const reader = batchApi(await svc.newParty({ scopes: ['lotecobv.read'] }));
    for (const res of [
      await reader.put(newBatchId(), [item(chave, newTxid('ReaderOnly'))]),
      await reader.patch(id, { descricao: 'x' }),
    ]) {
      assert.equal(res.status, 403);
      assert.match(res.body.type, /\/AcessoNegado$/);
    }
    assert.equal((await reader.get(id)).status, 404, "another account's batch reads as absent");
  });

  it('denies the waiting items with a 500 problem when the batch job keeps failing, so the batch is not stuck', async () => {
    const id = newBatchId();
    const txid = newTxid('Stuck');
    // The worker stays paused: this test plays the outbox, attempt by attempt.
    const jobs = await pauseJobs(svc);
    try {
      assert.equal((await api.put(id, [item(chave, txid)])).status, 202);
      await failTheJob(id);
    } finally {
      jobs.resume();
    }
    const batch = await api.settled(id);
    assert.equal(batch.cobsv[0].status, 'NEGADA');
    assert.match(batch.cobsv[0].problema.type, /\/ErroInternoDoServidor$/);
    assert.equal(batch.cobsv[0].problema.status, 500);
    assert.equal(
      (await api.create(id, [item(chave, txid)])).cobsv[0].status,
      'CRIADA',
      're-sending the batch creates it',
    );
  });

  async function failTheJob(id: number): Promise<void> {
    const { db, clock } = svc.service.ctx;
    const { rows } = await db.query<{ id: number }>(
      'select id from cobv_batches where account_id = $1 and public_id = $2',
      [svc.demo.accountId, id],
    );
    let failures = 0;
    // The first transaction (the processing) fails; the rest run on the real database.
    const failingOnce = {
      ...db,
      tx: <T>(work: (sql: never) => Promise<T>) =>
        failures++ ? db.tx(work as never) : Promise.reject(new Error('database unavailable')),
    } as typeof db;
    const handler = batchJobHandler({ db: failingOnce, clock, chargeCreated: [autoPaymentHook] });
    const job = (attempt: number) => ({
      id: 0,
      topic: 'lotecobv.process',
      payload: { batchId: rows[0].id },
      attempt,
      createdAt: new Date(),
      accountId: svc.demo.accountId,
    });
    await assert.rejects(handler(job(1)), /database unavailable/, 'an early attempt is retried by the outbox');
    failures = 0;
    const outcome = await handler(job(LIMITS.lotecobvJobMaxAttempts));
    assert.ok('giveUp' in outcome, 'the last attempt gives up');
  }

  it('creates batch charges that behave like any charge: the sandbox pays one of up to 10.00', async () => {
    const id = newBatchId();
    const [small, large] = [newTxid('Small'), newTxid('Large')];
    await api.create(id, [
      item(chave, small, { valor: { original: '5.00' } }),
      item(chave, large, { valor: { original: '10.01' } }),
    ]);
    const paid = await waitFor(async () => {
      const res = await api.cobv(small);
      return res.body.status === 'CONCLUIDA' && res.body;
    }, 'sandbox settlement of a batch charge');
    assert.equal(paid.pix[0].valor, '5.00');
    assert.equal((await api.cobv(large)).body.status, 'ATIVA');
  });

  it('creates a batch once when two PUTs of a new id race, and a repeated job changes nothing', async () => {
    const id = newBatchId();
    const cobsv = Array.from({ length: 20 }, (_, i) => item(chave, newTxid(`Race${i}x`)));
    const results = await Promise.all([api.put(id, cobsv), api.put(id, cobsv)]);
    assert.ok(results.some((r) => r.status === 202));
    for (const r of results)
      assert.ok(r.status === 202 || (r.status === 400 && r.body.violacoes[0].propriedade === 'loteCobV'), r.text);
    const batch = await api.settled(id);
    assert.equal(batch.cobsv.length, 20);
    assert.ok(batch.cobsv.every((c: { status: string }) => c.status === 'CRIADA'));

    const db = svc.service.ctx.db;
    const count = async () =>
      (
        await db.query<{ n: number }>(
          'select count(*)::int as n from charge_revisions r join charges c on c.id = r.charge_id join cobv_batches b on b.id = c.batch_id where b.public_id = $1',
          [id],
        )
      ).rows[0].n;
    const before = await count();
    const { rows } = await db.query<{ id: number }>(
      'select id from cobv_batches where account_id = $1 and public_id = $2',
      [svc.demo.accountId, id],
    );
    await db.tx((sql) => processBatch(sql, { db, clock: svc.clock, chargeCreated: [autoPaymentHook] }, rows[0].id));
    assert.equal(await count(), before);
    assert.deepEqual(await api.settled(id), batch);
  });
});
