/**
 * Sent Pix in the reconciliation report (issue 14, item 6): the hold is the sent Pix's line
 * (`pixEnviadoChave`, `pixEnviadoDadosBancarios`), a refused send's return is `estornoPixEnviado`, a transfer
 * to another pixd account is the receiver's `pixRecebido`; the file's closing balance, the balance and the
 * journal agree to the cent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { callerWithFreshToken, setClock, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { TIPO_REGISTROS } from '../../src/pix/reports/record-types.ts';

const POST = '/v2/gn/relatorios/extrato-conciliacao';
const ALL = Object.fromEntries(TIPO_REGISTROS.map((t) => [t, true]));

describe('sent Pix in the reconciliation report', () => {
  let svc: TestService;
  let receiver: Receiver;
  let payer: Party;
  let payee: Party;

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    payer = await svc.newParty();
    payee = await svc.newParty();
    await webhookApi(payer).registerPix(`${receiver.url}/payer`);
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  async function report(call: Call, dataMovimento: string) {
    const posted = await call('POST', POST, { dataMovimento, tipoRegistros: ALL });
    assert.equal(posted.status, 201, posted.text);
    const file = await waitFor(async () => {
      const res = await call('GET', `/v2/gn/relatorios/${posted.body.id}`);
      return res.status === 200 && res;
    }, 'report file');
    const lines = file.text
      .slice(0, -1)
      .split('\n')
      .map((l) => l.split(';'));
    return { data: lines.slice(1, -1).map((l) => [l[1], l[3], l[4], l[5], l[6]]), trailer: lines.at(-1)! };
  }

  it('shows the sends on the day they were asked, the return of a refused one, and reconciles with the balance and the journal', async () => {
    const day = fromEpochDay(toEpochDay(brasiliaDate(svc.clock.now())) + 10);
    const next = fromEpochDay(toEpochDay(day) + 1);
    setClock(svc, `${day}T09:00:00-03:00`);
    const call = callerWithFreshToken(payer);
    assert.equal((await call('POST', '/sandbox/pix/pay', { chave: payer.chaves[0], valor: '100.00' })).status, 201);
    const send = async (idEnvio: string, valor: string, favorecido: unknown) => {
      const res = await call('PUT', `/v2/gn/pix/${idEnvio}`, {
        valor,
        pagador: { chave: payer.chaves[0] },
        favorecido,
      });
      assert.equal(res.status, 201, res.text);
      const read = await waitFor(async () => {
        const r = (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).body;
        return r.status !== 'EM_PROCESSAMENTO' && r;
      }, `${idEnvio} settled`);
      return { e2eId: res.body.e2eId as string, status: read.status as string };
    };
    const done = await send('rep1', '5.00', { chave: 'fornecedor@example.com' });
    assert.equal(done.status, 'REALIZADO');
    const refused = await send('rep2', '15.00', { chave: 'fornecedor@example.com' });
    assert.equal(refused.status, 'NAO_REALIZADO');
    const { documento, conta } = (
      await svc.service.ctx.db.query<{ documento: string; conta: string }>(
        'select documento, conta from accounts where id = $1',
        [payee.accountId],
      )
    ).rows[0];
    const doc = documento.length === 11 ? { cpf: documento } : { cnpj: documento };
    const bank = await send('rep3', '2.00', {
      contaBanco: { nome: 'Recebedora', ...doc, codigoBanco: '99999008', agencia: '0001', conta, tipoConta: 'cacc' },
    });
    assert.equal(bank.status, 'REALIZADO');

    setClock(svc, `${next}T10:00:00-03:00`);
    const mine = await report(callerWithFreshToken(payer), day);
    assert.deepEqual(mine.data, [
      ['saldoDiaAnterior', '', '0.00', '0.00', ''],
      ['pixRecebido', 'C', '100.00', '100.00', mine.data[1][4]],
      ['pixEnviadoChave', 'D', '5.00', '95.00', done.e2eId],
      ['pixEnviadoChave', 'D', '15.00', '80.00', refused.e2eId],
      ['estornoPixEnviado', 'C', '15.00', '95.00', refused.e2eId],
      ['pixEnviadoDadosBancarios', 'D', '2.00', '93.00', bank.e2eId],
      ['saldoDia', '', '93.00', '93.00', ''],
    ]);
    assert.deepEqual(mine.trailer.slice(2), ['115.00', '22.00', '0.00', '0.00', '93.00']);
    const saldo = (await callerWithFreshToken(payer)('GET', '/v2/gn/saldo/')).body.saldo;
    assert.equal(saldo, '93.00', 'the balance is the report closing balance');

    const theirs = await report(callerWithFreshToken(payee), day);
    assert.deepEqual(theirs.data, [
      ['saldoDiaAnterior', '', '0.00', '0.00', ''],
      ['pixRecebido', 'C', '2.00', '2.00', bank.e2eId],
      ['saldoDia', '', '2.00', '2.00', ''],
    ]);
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, payer.accountId, saldo);
    await assertLedgerBalanced(db);
  });
});
