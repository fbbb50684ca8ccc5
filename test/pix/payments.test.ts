/** The payment engine end to end: sandbox settlement, sandbox pay, received Pix, refunds, balance, ledger. */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';

describe('payments, received Pix, refunds and balance', () => {
  let svc: TestService;
  let party: Party;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => party.http.request(method, path, { token, body });
  const createCob = async (original: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v2/cob', cobBody(party.chaves[0], original, extra));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const pay = (body: Record<string, unknown>) => call('POST', '/sandbox/pix/pay', body);
  const saldo = async () => (await call('GET', '/v2/gn/saldo/')).body.saldo as string;

  before(async () => {
    svc = await startTestService();
  });
  afterEach(async () => {
    await assertLedgerBalanced(svc.service.ctx.db);
    if (party) await assertBalanceMatchesLines(svc.service.ctx.db, party.accountId, await saldo());
  });
  after(() => svc.close());

  const freshParty = async () => {
    party = await svc.newParty();
    token = await party.token();
  };

  it('settles a 10.00 charge automatically in the sandbox, and leaves 10.01 active', async () => {
    await freshParty();
    const paid = await createCob('10.00');
    const unpaid = await createCob('10.01');
    const cheap = await createCob('0.01');
    assert.equal(paid.status, 'ATIVA', 'a moment passes before the fictitious payer pays');
    const concluded = await waitFor(async () => {
      const res = await call('GET', `/v2/cob/${paid.txid}`);
      return res.body.status === 'CONCLUIDA' && res.body;
    }, 'auto-settlement of 10.00');
    assert.equal(concluded.pix.length, 1);
    assert.equal(concluded.pix[0].valor, '10.00');
    await waitFor(
      async () => (await call('GET', `/v2/cob/${cheap.txid}`)).body.status === 'CONCLUIDA',
      'auto-settlement of 0.01',
    );
    // The auto-payments queued with them have run: had 10.01 qualified, its payment would have run too.
    await outboxIdle(svc);
    assert.equal((await call('GET', `/v2/cob/${unpaid.txid}`)).body.status, 'ATIVA');
    assert.equal(await saldo(), '10.01');
    const outbox = await svc.service.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from outbox where topic = 'webhook.pix' and payload->>'accountId' = $1`,
      [String(party.accountId)],
    );
    assert.equal(outbox.rows[0].n, 2, 'each settlement enqueued its webhook event in the same transaction');
  });

  it('pays by txid, by copy-and-paste code and by key through the same engine', async () => {
    await freshParty();
    const byTxid = await createCob('50.00');
    const res1 = await pay({
      txid: byTxid.txid,
      pagador: { nome: 'Maria', cpf: '52998224725' },
      infoPagador: 'pedido 1',
    });
    assert.equal(res1.status, 201, res1.text);
    assert.match(res1.body.endToEndId, /^E\d{8}\d{12}[A-Z0-9]{11}$/);
    assert.equal(res1.body.txid, byTxid.txid);
    assert.deepEqual(res1.body.pagador, { cpf: '52998224725', nome: 'Maria' });
    assert.equal(res1.body.infoPagador, 'pedido 1');

    const byCode = await createCob('60.00');
    const res2 = await pay({ pixCopiaECola: byCode.pixCopiaECola });
    assert.equal(res2.status, 201, res2.text);
    assert.equal(res2.body.valor, '60.00');
    assert.equal((await call('GET', `/v2/cob/${byCode.txid}`)).body.status, 'CONCLUIDA');

    const res3 = await pay({ chave: party.chaves[0], valor: '7.50' });
    assert.equal(res3.status, 201, res3.text);
    assert.equal(res3.body.txid, undefined);
    assert.equal(await saldo(), '117.50');
    assert.equal(
      (await call('GET', '/v2/gn/saldo')).body.saldo,
      '117.50',
      'the balance answers without the trailing slash too',
    );
  });

  it('refuses what a real payment would refuse', async () => {
    await freshParty();
    const cob = await createCob('20.00', { calendario: { expiracao: 60 } });
    const wrong = await pay({ txid: cob.txid, valor: '19.99' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.violacoes[0].razao, 'valor_divergente');
    svc.advance(61);
    try {
      const expired = await pay({ txid: cob.txid });
      assert.equal(expired.status, 400);
      assert.equal(expired.body.violacoes[0].razao, 'cobranca_expirada');
    } finally {
      svc.advance(-61);
    }
    const removed = await createCob('20.00');
    await call('PATCH', `/v2/cob/${removed.txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    assert.equal((await pay({ txid: removed.txid })).body.violacoes[0].razao, 'cobranca_removida');
    const keyGone = await createCob('20.00');
    await svc.service.ctx.db.query('update pix_keys set removed_at = now() where chave = $1', [party.chaves[0]]);
    try {
      assert.equal((await pay({ txid: keyGone.txid })).body.violacoes[0].razao, 'chave_removida');
    } finally {
      await svc.service.ctx.db.query('update pix_keys set removed_at = null where chave = $1', [party.chaves[0]]);
    }
    assert.equal(
      (await pay({ txid: 'NoSuchTxid0000000000000000001' })).body.violacoes[0].razao,
      'cobranca_inexistente',
    );
    assert.equal(
      (await pay({ chave: 'ninguem@example.com', valor: '1.00' })).body.violacoes[0].razao,
      'chave_inexistente',
    );
    assert.equal((await pay({ pixCopiaECola: '000201junk' })).status, 400);
    assert.equal((await pay({ txid: cob.txid, chave: party.chaves[0] })).status, 400, 'one target only');
    assert.equal(await saldo(), '0.00');
  });

  it('pays a charge paid twice at the same moment exactly once', async () => {
    await freshParty();
    const cob = await createCob('30.00');
    const attempts = await Promise.all(Array.from({ length: 8 }, () => pay({ txid: cob.txid })));
    assert.equal(attempts.filter((r) => r.status === 201).length, 1);
    assert.ok(
      attempts
        .filter((r) => r.status !== 201)
        .every((r) => r.status === 400 && ['cobranca_paga', 'pix_duplicado'].includes(r.body.violacoes[0].razao)),
    );
    const rows = await svc.service.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from received_pix where txid = $1',
      [cob.txid],
    );
    assert.equal(rows.rows[0].n, 1);
    assert.equal(await saldo(), '30.00');
  });

  it('reads and lists received Pix with filters and pagination; charges carry their pix', async () => {
    await freshParty();
    const a = await createCob('11.00');
    const b = await createCob('12.00');
    const pa = (await pay({ txid: a.txid, pagador: { nome: 'Empresa', cnpj: '12345678000195' } })).body;
    await pay({ txid: b.txid });
    await pay({ chave: party.chaves[0], valor: '13.00' });
    const one = await call('GET', `/v2/pix/${pa.endToEndId}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.valor, '11.00');
    assert.deepEqual(one.body.devolucoes, []);
    const list = async (q: string) => (await call('GET', `/v2/pix?${RANGE}&${q}`)).body;
    assert.equal((await list('')).pix.length, 3);
    assert.equal((await list('txIdPresente=true')).pix.length, 2);
    assert.equal((await list('txIdPresente=false')).pix.length, 1);
    assert.equal((await list(`txid=${b.txid}`)).pix.length, 1);
    assert.equal((await list('cnpj=12345678000195')).pix.length, 1);
    const page = await list('paginacao.itensPorPagina=2&paginacao.paginaAtual=1');
    assert.equal(page.pix.length, 1);
    assert.equal(page.parametros.paginacao.quantidadeTotalDeItens, 3);
    const cobs = (await call('GET', `/v2/cob?${RANGE}`)).body.cobs;
    const listed = cobs.find((c: { txid: string }) => c.txid === a.txid);
    assert.equal(listed.status, 'CONCLUIDA');
    assert.equal(listed.pix[0].endToEndId, pa.endToEndId);
    assert.deepEqual(listed.pix[0].devolucoes, []);
    const other = await svc.newParty();
    assert.equal(
      (await other.http.request('GET', `/v2/pix/${pa.endToEndId}`, { token: await other.token() })).status,
      404,
      'another account cannot see it',
    );
    assert.equal((await call('GET', '/v2/pix/E99999009202601010000ABCDEFGHIJK')).status, 404);
    assert.equal((await call('GET', '/v2/pix/not-an-e2e')).status, 400);
  });

  it('lists each Pix exactly as its single read shows it: components, payer by CNPJ, refunds, key order', async () => {
    await freshParty();
    // A due charge with a fixed discount until 2099: paid today, 100.00 less 30.00, with componentesValor.
    const cobv = await call('PUT', '/v2/cobv/listadocomcomponentes0000000001', {
      calendario: { dataDeVencimento: '2099-12-31', validadeAposVencimento: 30 },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: {
        original: '100.00',
        desconto: { modalidade: 1, descontoDataFixa: [{ data: '2099-11-30', valorPerc: '30.00' }] },
      },
      chave: party.chaves[0],
    });
    assert.equal(cobv.status, 201, cobv.text);
    const due = (await pay({ txid: cobv.body.txid })).body;
    assert.equal(due.valor, '70.00', due);
    const cob = await createCob('11.00');
    const byCnpj = (await pay({ txid: cob.txid, pagador: { nome: 'Empresa', cnpj: '12345678000195' } })).body;
    await pay({ chave: party.chaves[0], valor: '13.00', infoPagador: 'com "aspas", \\ e informação' });
    const refund = await call('PUT', `/v2/pix/${byCnpj.endToEndId}/devolucao/L1`, {
      valor: '1.00',
      descricao: 'parte',
    });
    assert.equal(refund.status, 201, refund.text);
    await waitFor(
      async () => (await call('GET', `/v2/pix/${byCnpj.endToEndId}/devolucao/L1`)).body.status === 'DEVOLVIDO',
      'refund settled',
    );
    const listed = await call('GET', `/v2/pix?${RANGE}`);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(listed.body.pix.length, 3);
    assert.deepEqual(listed.body.pix[0].componentesValor, {
      original: { valor: '100.00' },
      desconto: { valor: '30.00' },
    });
    const singles = [];
    for (const item of listed.body.pix) singles.push((await call('GET', `/v2/pix/${item.endToEndId}`)).body);
    // Byte for byte what the view and the response schema write: properties, values, order, escaping.
    assert.equal(listed.text, JSON.stringify({ parametros: listed.body.parametros, pix: singles }));
    const [inicio, fim] = RANGE.split('&').map((p) => decodeURIComponent(p.split('=')[1]));
    const pastTheEnd = await call('GET', `/v2/pix?${RANGE}&paginacao.itensPorPagina=2&paginacao.paginaAtual=5`);
    assert.equal(
      pastTheEnd.text,
      JSON.stringify({
        parametros: {
          inicio,
          fim,
          paginacao: { paginaAtual: 5, itensPorPagina: 2, quantidadeDePaginas: 2, quantidadeTotalDeItens: 3 },
        },
        pix: [],
      }),
    );
  });

  it('refunds up to what was received, idempotently per id, and settles them', async () => {
    await freshParty();
    const cob = await createCob('100.00');
    const { endToEndId } = (await pay({ txid: cob.txid })).body;
    const refund = (id: string, valor: string) => call('PUT', `/v2/pix/${endToEndId}/devolucao/${id}`, { valor });
    const first = await refund('D1', '60.00');
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.status, 'EM_PROCESSAMENTO');
    assert.match(first.body.rtrId, /^D99999008\d{12}[A-Z0-9]{11}$/);
    const again = await refund('D1', '60.00');
    assert.equal(again.status, 201);
    assert.equal(again.body.rtrId, first.body.rtrId, 'same id, same refund');
    assert.equal((await refund('D1', '61.00')).status, 400, 'same id with another amount conflicts');
    const over = await refund('D2', '40.01');
    assert.equal(over.status, 400);
    assert.equal(over.body.violacoes[0].propriedade, 'valor');
    assert.equal((await refund('D2', '40.00')).status, 201);
    assert.equal((await refund('D3', '0.01')).status, 400, 'nothing left to refund');
    await waitFor(
      async () => (await call('GET', `/v2/pix/${endToEndId}/devolucao/D2`)).body.status === 'DEVOLVIDO',
      'refund settlement',
    );
    const settled = await call('GET', `/v2/pix/${endToEndId}/devolucao/D1`);
    assert.equal(settled.body.status, 'DEVOLVIDO');
    assert.ok(settled.body.horario.liquidacao);
    assert.equal(await saldo(), '0.00');
    const pix = (await call('GET', `/v2/pix/${endToEndId}`)).body;
    assert.deepEqual(
      pix.devolucoes.map((d: { id: string }) => d.id),
      ['D1', 'D2'],
    );
    assert.equal((await call('GET', `/v2/pix?${RANGE}&devolucaoPresente=true`)).body.pix.length, 1);
    assert.equal((await call('GET', `/v2/pix/${endToEndId}/devolucao/NOPE`)).status, 404);
  });

  it("PUT /v2/gn/pix/:e2eid/devolucao/:id, the provider's path, is the same refund engine ({nome, mensagem} errors)", async () => {
    await freshParty();
    const cob = await createCob('20.00');
    const { endToEndId } = (await pay({ txid: cob.txid })).body;
    const gn = (id: string, valor: string) => call('PUT', `/v2/gn/pix/${endToEndId}/devolucao/${id}`, { valor });
    const first = await gn('G1', '15.00');
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.id, 'G1');
    assert.equal(first.body.valor, '15.00');
    assert.equal(first.body.status, 'EM_PROCESSAMENTO');
    assert.ok(first.body.horario.solicitacao);
    const viaBacen = await call('PUT', `/v2/pix/${endToEndId}/devolucao/G1`, { valor: '15.00' });
    assert.equal(viaBacen.body.rtrId, first.body.rtrId, 'one refund, whichever path asked for it');
    const over = await gn('G2', '5.01');
    assert.equal(over.status, 400);
    assert.equal(over.body.nome, 'PixDevolucaoInvalida');
    assert.match(over.body.mensagem, /excede o disponível/);
    const unknown = await call('PUT', `/v2/gn/pix/E99999998202601010000abcdefghijk/devolucao/G1`, { valor: '1.00' });
    assert.equal(unknown.status, 404);
    assert.ok(unknown.body.nome);
    await waitFor(
      async () => (await call('GET', `/v2/pix/${endToEndId}/devolucao/G1`)).body.status === 'DEVOLVIDO',
      'refund settlement',
    );
    assert.equal(await saldo(), '5.00');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('does not refund money the account no longer has: NAO_REALIZADO', async () => {
    await freshParty();
    const cob = await createCob('80.00');
    const { endToEndId } = (await pay({ txid: cob.txid })).body;
    const block = await call('POST', '/sandbox/saldo/bloqueios', { tipo: 'judicial', valor: '50.00' });
    assert.equal(block.status, 201, block.text);
    const withBlocks = (await call('GET', '/v2/gn/saldo/?bloqueios=true')).body;
    assert.deepEqual(withBlocks, { saldo: '30.00', bloqueios: { judicial: '50.00', med: '0.00', total: '50.00' } });
    assert.equal((await call('PUT', `/v2/pix/${endToEndId}/devolucao/R1`, { valor: '40.00' })).status, 201);
    const result = await waitFor(async () => {
      const res = await call('GET', `/v2/pix/${endToEndId}/devolucao/R1`);
      return res.body.status !== 'EM_PROCESSAMENTO' && res.body;
    }, 'refund settlement');
    assert.equal(result.status, 'NAO_REALIZADO');
    assert.match(result.motivo, /Saldo insuficiente/);
    assert.equal(await saldo(), '30.00');
    const retry = await call('PUT', `/v2/pix/${endToEndId}/devolucao/R2`, { valor: '30.00' });
    assert.equal(retry.status, 201, 'a refused refund frees its amount');
    await waitFor(
      async () => (await call('GET', `/v2/pix/${endToEndId}/devolucao/R2`)).body.status === 'DEVOLVIDO',
      'second refund',
    );
    assert.equal(await saldo(), '0.00');
  });
});
