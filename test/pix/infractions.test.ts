/**
 * MED infractions (issue 14, item 7): opened by the sandbox against a received Pix (the amount blocked,
 * `bloqueios.med`), listed, defended once (`aceito` refunds the payer at once; `rejeitado` contests),
 * decided by the sandbox (upheld: refund; not upheld: block released) or, with no defence, on the service
 * clock at the deadline. Real HTTPS; the ledger's invariants after each step.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { outboxIdle } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { LIMITS } from '../../src/platform/limits.ts';

const PROBLEM = 'https://pix.bcb.gov.br/api/v2/error/';

describe('MED infractions', () => {
  let svc: TestService;
  let party: Party;
  let other: Party;
  let call: Call;
  const received: Record<string, string> = {};

  const balance = async () => (await call('GET', '/v2/gn/saldo/?bloqueios=true')).body;
  const open = (endToEndId: string, motivo = 'Golpe relatado pelo pagador.') =>
    call('POST', '/sandbox/infracoes', { endToEndId, motivo });
  const defend = (idInfracao: string, analise: string, justificativa = 'Justificativa.') =>
    call('POST', `/v2/gn/infracoes/${idInfracao}/defesa`, { analise, justificativa });
  const ledgerOk = async () => {
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, party.accountId, (await balance()).saldo);
    await assertLedgerBalanced(db);
  };

  before(async () => {
    svc = await startTestService();
    party = await svc.newParty();
    other = await svc.newParty();
    call = callerWithFreshToken(party);
    for (const valor of ['40.00', '30.00', '20.00', '10.00']) {
      const res = await call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor });
      assert.equal(res.status, 201, res.text);
      received[valor] = res.body.endToEndId;
    }
  });
  after(() => svc?.close());

  it('opens an infraction: the amount is blocked (bloqueios.med) and the infraction listed with the SDK fields', async () => {
    const res = await open(received['40.00']);
    assert.equal(res.status, 201, res.text);
    const i = res.body;
    assert.equal(i.status, 'ABERTA');
    assert.equal(i.endToEndId, received['40.00']);
    assert.equal(i.valor, '40.00');
    assert.equal(i.chave, party.chaves[0]);
    assert.equal(i.razao, 'Golpe relatado pelo pagador.');
    assert.equal(
      Date.parse(i.dadosAnalise.prazoFinalizacao) - Date.parse(i.dadosAnalise.abertura),
      LIMITS.infractionDefenceDays * 86_400_000,
    );
    assert.deepEqual(await balance(), {
      saldo: '60.00',
      bloqueios: { judicial: '0.00', med: '40.00', total: '40.00' },
    });

    const inicio = new Date(svc.clock.nowMs() - 3_600_000).toISOString();
    const fim = new Date(svc.clock.nowMs() + 3_600_000).toISOString();
    const list = await call('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}`);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.parametros.paginacao.quantidadeTotalDeItens, 1);
    assert.deepEqual(list.body.infracoes[0], i);
    for (const field of [
      'idInfracao',
      'protocolo',
      'dataTransacao',
      'tipoSituacao',
      'origem',
      'destino',
      'criadoEm',
      'atualizadoEm',
    ])
      assert.ok(field in i, field);
    const foreign = await callerWithFreshToken(other)('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}`);
    assert.equal(foreign.body.infracoes.length, 0);

    const twice = await open(received['40.00']);
    assert.equal(twice.status, 400, twice.text);
    assert.equal(twice.body.type, `${PROBLEM}InfracaoInvalida`);
    assert.equal((await open('E99999009202601010000ABCDEFGHIJK')).status, 404);
    await ledgerOk();
  });

  it('defence aceito: refunded to the payer (ACEITA at once, the MED devolução DEVOLVIDO on its answer); a second defence is refused', async () => {
    const inicio = new Date(svc.clock.nowMs() - 3_600_000).toISOString();
    const fim = new Date(svc.clock.nowMs() + 3_600_000).toISOString();
    const [i] = (await call('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}`)).body.infracoes;
    const notMine = await callerWithFreshToken(other)('POST', `/v2/gn/infracoes/${i.idInfracao}/defesa`, {
      analise: 'aceito',
      justificativa: 'x',
    });
    assert.equal(notMine.status, 404, notMine.text);
    const res = await defend(i.idInfracao, 'aceito', 'Concordamos com a devolução.');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'ACEITA');
    assert.equal(res.body.defesa, 'Concordamos com a devolução.');
    assert.ok(res.body.dadosAnalise.recebimentoDefesa);
    assert.ok(res.body.dadosAnalise.finalizacao);
    assert.deepEqual(await balance(), { saldo: '60.00', bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' } });
    // The MED return leaves as a pacs.004 and is DEVOLVIDO when the payer's institution answers (docs/spi.md):
    // once the sandbox's institution in the node is idle.
    await outboxIdle(svc);
    const pix = await call('GET', `/v2/pix/${received['40.00']}`);
    assert.equal(pix.body.devolucoes.length, 1);
    assert.equal(pix.body.devolucoes[0].natureza, 'MED_FRAUDE');
    assert.equal(pix.body.devolucoes[0].status, 'DEVOLVIDO');
    assert.equal(pix.body.devolucoes[0].valor, '40.00');
    const again = await defend(i.idInfracao, 'rejeitado');
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.type, `${PROBLEM}InfracaoInvalida`);
    const bad = await call('POST', `/v2/gn/infracoes/${i.idInfracao}/defesa`, {
      analise: 'talvez',
      justificativa: 'x',
    });
    assert.equal(bad.status, 400, bad.text);
    await ledgerOk();
  });

  it('defence rejeitado: EM_DEFESA until the sandbox decides; not upheld releases the block, upheld refunds the payer', async () => {
    const contested = (await open(received['30.00'])).body;
    const upheld = (await open(received['20.00'])).body;
    assert.equal((await balance()).bloqueios.med, '50.00');
    const early = await call('POST', `/sandbox/infracoes/${contested.idInfracao}/decidir`, { procedente: true });
    assert.equal(early.status, 400, 'only a contested infraction is decided');
    for (const i of [contested, upheld])
      assert.equal((await defend(i.idInfracao, 'rejeitado')).body.status, 'EM_DEFESA');

    const released = await call('POST', `/sandbox/infracoes/${contested.idInfracao}/decidir`, { procedente: false });
    assert.equal(released.status, 200, released.text);
    assert.equal(released.body.status, 'REJEITADA');
    assert.deepEqual(await balance(), {
      saldo: '40.00',
      bloqueios: { judicial: '0.00', med: '20.00', total: '20.00' },
    });

    const refunded = await call('POST', `/sandbox/infracoes/${upheld.idInfracao}/decidir`, { procedente: true });
    assert.equal(refunded.body.status, 'ACEITA');
    assert.deepEqual(await balance(), { saldo: '40.00', bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' } });
    assert.equal((await call('GET', `/v2/pix/${received['20.00']}`)).body.devolucoes[0].valor, '20.00');
    await ledgerOk();
  });

  it('no defence by the deadline: decided upheld on the service clock; a defence after it is refused', async () => {
    const i = (await open(received['10.00'])).body;
    assert.equal((await balance()).saldo, '30.00');
    svc.advance(LIMITS.infractionDefenceDays * 86_400 + 1);
    const late = await defend(i.idInfracao, 'rejeitado');
    assert.equal(late.status, 400, late.text);
    const inicio = new Date(Date.parse(i.dadosAnalise.abertura) - 1000).toISOString();
    const fim = new Date(svc.clock.nowMs()).toISOString();
    // The deadline's job decides it, and its MED return's pacs.004 is answered by the sandbox's institution.
    await outboxIdle(svc);
    const items = (await call('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}`)).body.infracoes;
    const decided = items.find((x: { idInfracao: string }) => x.idInfracao === i.idInfracao);
    assert.equal(decided?.status, 'ACEITA', 'deadline decision');
    assert.ok(decided.dadosAnalise.finalizacao);
    assert.deepEqual(await balance(), { saldo: '30.00', bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' } });
    await ledgerOk();
  });
});
