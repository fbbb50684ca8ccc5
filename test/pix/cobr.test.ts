import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { Receiver } from '../helpers/receiver.ts';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { recBody } from './rec-fixtures.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';
const addDays = (date: string, days: number) => fromEpochDay(toEpochDay(date) + days);

describe('recurring charges (cobr)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let conta: string;
  let party: Party;
  // The account's clock moves by days: every call takes a token issued at its current time.
  let call: Call;
  const now = async () => new Date((await call('GET', '/sandbox/clock')).body.agora);
  const today = async () => brasiliaDate(await now());
  /** The first business day at least `days` after today. */
  const businessDayIn = async (days: number) => {
    let day = toEpochDay(await today()) + days;
    while (!isBusinessDay(day)) day++;
    return fromEpochDay(day);
  };
  /** Moves the account's clock to 01:00 in Brasília of `date`. */
  const advanceTo = async (date: string) => {
    const ms = Date.parse(`${date}T04:00:00Z`) - (await now()).getTime();
    assert.ok(ms > 0, `advance to ${date}`);
    const res = await call('POST', '/sandbox/clock/advance', { segundos: Math.ceil(ms / 1000) });
    assert.equal(res.status, 200, res.text);
  };
  const approvedRec = async (extra: Record<string, unknown>) => {
    const rec = await call(
      'POST',
      '/v2/rec',
      recBody({ calendario: { dataInicial: await today(), periodicidade: 'SEMANAL' }, ...extra }),
    );
    assert.equal(rec.status, 201, rec.text);
    const approved = await call('POST', `/sandbox/rec/${rec.body.idRec}/aprovar`);
    assert.equal(approved.status, 200, approved.text);
    return rec.body.idRec as string;
  };
  const cobrBody = (
    idRec: string,
    dataDeVencimento: string,
    original: string,
    extra: Record<string, unknown> = {},
  ) => ({
    idRec,
    calendario: { dataDeVencimento },
    valor: { original },
    ajusteDiaUtil: false,
    recebedor: { conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
    devedor: { cpf: '45164632481', nome: 'Fulano de Tal' },
    ...extra,
  });
  const expectInvalid = (res: { status: number; body: any; text: string }, property: string) => {
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.type, /\/CobROperacaoInvalida$/);
    assert.equal(res.body.violacoes?.[0]?.propriedade, property, res.text);
  };
  const saldo = async () => (await call('GET', '/v2/gn/saldo')).body.saldo as string;

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    party = svc.demo;
    call = callerWithFreshToken(party);
    const { rows } = await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
      party.accountId,
    ]);
    conta = rows[0].conta;
    const put = await call('PUT', '/v2/webhookcobr', { webhookUrl: `${receiver.url}/auto` });
    assert.equal(put.status, 201, put.text);
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it('refuses charges off the rules, naming the field', async () => {
    const idRec = await approvedRec({ valor: { valorRec: '10.00' } });
    const due = await businessDayIn(3);
    expectInvalid(
      await call('POST', '/v2/cobr', cobrBody('RN9999900820990101abcdefghijk', due, '10.00')),
      'cobr.idRec',
    );
    const created = await call(
      'POST',
      '/v2/rec',
      recBody({ calendario: { dataInicial: await today(), periodicidade: 'MENSAL' } }),
    );
    expectInvalid(await call('POST', '/v2/cobr', cobrBody(created.body.idRec, due, '35.85')), 'cobr.idRec');
    const rejected = await call('PATCH', `/v2/rec/${created.body.idRec}`, { status: 'CANCELADA' });
    assert.equal(rejected.status, 200);
    expectInvalid(await call('POST', '/v2/cobr', cobrBody(created.body.idRec, due, '35.85')), 'cobr.idRec');
    expectInvalid(await call('POST', '/v2/cobr', cobrBody(idRec, due, '9.99')), 'cobr.valor.original');
    // Tomorrow: one calendar day ahead (the next business day is three on a Friday, which the rule accepts).
    expectInvalid(
      await call('POST', '/v2/cobr', cobrBody(idRec, addDays(await today(), 1), '10.00')),
      'cobr.calendario.dataDeVencimento',
    );
    expectInvalid(
      await call('POST', '/v2/cobr', cobrBody(idRec, await businessDayIn(12), '10.00')),
      'cobr.calendario.dataDeVencimento',
    );
    expectInvalid(
      await call('POST', '/v2/cobr', cobrBody(idRec, addDays(await today(), -30), '10.00')),
      'cobr.calendario.dataDeVencimento',
    );
    expectInvalid(
      await call(
        'POST',
        '/v2/cobr',
        cobrBody(idRec, due, '10.00', { recebedor: { conta: '999', tipoConta: 'CORRENTE' } }),
      ),
      'cobr.recebedor.conta',
    );
    const minimum = await approvedRec({ valor: { valorMinimoRecebedor: '5.00' } });
    expectInvalid(await call('POST', '/v2/cobr', cobrBody(minimum, due, '4.99')), 'cobr.valor.original');
    const unknown = await call('GET', '/v2/cobr/NaoExiste000000000000000000001');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.type, /CobRNaoEncontrado$/);
  });

  it('moves a due date off a weekend with ajusteDiaUtil, and lets the receiver cancel before it', async () => {
    const idRec = await approvedRec({ valor: { valorMinimoRecebedor: '1.00' } });
    // The first Saturday at least 2 days out: the Monday it moves to is then at most 10 days out, inside the
    // window a charge is created in whatever the weekday today (from 3 days out, a Thursday's was 11).
    let saturday = toEpochDay(await today()) + 2;
    while (new Date(saturday * 86_400_000).getUTCDay() !== 6) saturday++;
    const res = await call(
      'POST',
      '/v2/cobr',
      cobrBody(idRec, fromEpochDay(saturday), '20.00', { ajusteDiaUtil: true }),
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.calendario.dataDeVencimento, fromEpochDay(saturday + 2), 'the Monday after');
    assert.equal(res.body.status, 'CRIADA');
    assert.equal(res.body.tentativas[0].tipo, 'AGND');
    const active = await waitFor(async () => {
      const r = await call('GET', `/v2/cobr/${res.body.txid}`);
      return r.body.status === 'ATIVA' && r.body;
    }, 'the payer acknowledges');
    assert.equal(active.tentativas[0].status, 'AGENDADA');
    const cancelled = await call('PATCH', `/v2/cobr/${res.body.txid}`, { status: 'CANCELADA' });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'CANCELADA');
    assert.equal(cancelled.body.tentativas[0].status, 'CANCELADA');
    expectInvalid(await call('PATCH', `/v2/cobr/${res.body.txid}`, { status: 'CANCELADA' }), 'cobr.status');
    const list = await call('GET', `/v2/cobr?${RANGE}&idRec=${idRec}`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.cobsr.map((c: { txid: string }) => c.txid),
      [res.body.txid],
    );
    assert.equal(list.body.parametros.paginacao.quantidadeTotalDeItens, 1);
  });

  it('settles on the due date through the payment engine, with /cobr webhooks', async () => {
    const idRec = await approvedRec({ valor: { valorRec: '10.00' } });
    const due = await businessDayIn(3);
    const txid = 'CobrSettled0000000000000000001';
    const res = await call('PUT', `/v2/cobr/${txid}`, cobrBody(idRec, due, '10.00'));
    assert.equal(res.status, 201, res.text);
    expectInvalid(await call('POST', `/v2/cobr/${txid}/retentativa/${addDays(due, 1)}`), 'politicaRetentativa');
    await waitFor(async () => (await call('GET', `/v2/cobr/${txid}`)).body.status === 'ATIVA', 'ATIVA');
    const before = Number(await saldo());
    await advanceTo(due);
    const paid = await waitFor(async () => {
      const r = await call('GET', `/v2/cobr/${txid}`);
      return r.body.status === 'CONCLUIDA' && r.body;
    }, 'CONCLUIDA on the due date');
    assert.equal(paid.tentativas[0].status, 'PAGA');
    assert.equal(paid.pix[0].valor, '10.00');
    const e2e = paid.pix[0].endToEndId;
    const pix = await call('GET', `/v2/pix/${e2e}`);
    assert.equal(pix.status, 200, pix.text);
    assert.equal(pix.body.txid, txid);
    assert.equal(Number(await saldo()), before + 10, 'the balance moved by the amount');
    const listed = await call('GET', `/v2/pix?${RANGE}&txid=${txid}`);
    assert.equal(listed.body.pix.length, 1, 'listed once');
    const refund = await call('PUT', `/v2/pix/${e2e}/devolucao/cobrRefund1`, { valor: '1.00' });
    assert.equal(refund.status, 201, refund.text);
    const statuses = await waitFor(async () => {
      const s = receiver
        .callsTo('/auto/cobr')
        .filter((c) => c.body.cobsr[0].txid === txid)
        .map((c) => c.body.cobsr[0].status);
      return s.includes('CONCLUIDA') && s;
    }, 'the /cobr webhooks');
    assert.deepEqual(statuses, ['CRIADA', 'ATIVA', 'CONCLUIDA']);
    // The refund settles on its own: the balance and its lines are compared once it has, not while it may.
    await waitFor(
      async () => (await call('GET', `/v2/pix/${e2e}/devolucao/cobrRefund1`)).body.status === 'DEVOLVIDO',
      'refund settlement',
    );
    assert.equal(Number(await saldo()), before + 9, 'the refund came out of the balance');
    await assertLedgerBalanced(svc.service.ctx.db);
    await assertBalanceMatchesLines(svc.service.ctx.db, party.accountId, await saldo());
  });

  it('settles many charges due on one day together, each exactly once', async () => {
    const count = 30;
    const due = await businessDayIn(3);
    const txids = Array.from({ length: count }, (_, i) => `CobrSameDay${String(i).padStart(4, '0')}`.padEnd(30, '0'));
    await Promise.all(
      txids.map(async (txid) => {
        const idRec = await approvedRec({ valor: { valorRec: '2.00' } });
        const res = await call('PUT', `/v2/cobr/${txid}`, cobrBody(idRec, due, '2.00'));
        assert.equal(res.status, 201, res.text);
      }),
    );
    const db = svc.service.ctx.db;
    const statusCount = async (status: string) =>
      (
        await db.query<{ n: number }>(
          'select count(*)::int as n from recurring_charges where txid = any($1) and status = $2',
          [txids, status],
        )
      ).rows[0].n;
    await waitFor(async () => (await statusCount('ATIVA')) === count, 'all ATIVA');
    const before = Number(await saldo());
    await advanceTo(due);
    await waitFor(async () => (await statusCount('CONCLUIDA')) === count, 'all CONCLUIDA on the due date');
    const { rows } = await db.query<{ txid: string; n: number }>(
      'select txid, count(*)::int as n from received_pix where txid = any($1) group by txid',
      [txids],
    );
    assert.equal(rows.length, count, 'a received Pix for every charge');
    assert.ok(
      rows.every((r) => r.n === 1),
      'none twice',
    );
    for (const txid of txids.slice(0, 3)) {
      const read = await call('GET', `/v2/cobr/${txid}`);
      assert.equal(read.body.tentativas[0].status, 'PAGA');
      const pix = await call('GET', `/v2/pix/${read.body.pix[0].endToEndId}`);
      assert.equal(pix.body.txid, txid);
    }
    assert.equal(Number(await saldo()), before + 2 * count, 'the balance moved by every amount');
    await assertLedgerBalanced(db);
    await assertBalanceMatchesLines(db, party.accountId, await saldo());
  });

  it('fails a charge above 10.00 and retries it at most 3 times within 7 days under PERMITE_3R_7D', async () => {
    const idRec = await approvedRec({ politicaRetentativa: 'PERMITE_3R_7D', valor: { valorMinimoRecebedor: '5.00' } });
    const due = await businessDayIn(2);
    const txid = 'CobrRetried0000000000000000001';
    const res = await call('PUT', `/v2/cobr/${txid}`, cobrBody(idRec, due, '50.00'));
    assert.equal(res.status, 201, res.text);
    const before = await saldo();
    await advanceTo(due);
    const failed = await waitFor(async () => {
      const r = await call('GET', `/v2/cobr/${txid}`);
      return r.body.tentativas[0].status === 'REJEITADA' && r.body;
    }, 'the first attempt fails');
    assert.equal(failed.status, 'ATIVA', 'retries allowed: still open');
    assert.ok(failed.tentativas[0].rejeicao.codigo);
    expectInvalid(await call('POST', `/v2/cobr/${txid}/retentativa/${addDays(due, 8)}`), 'data');
    expectInvalid(await call('POST', `/v2/cobr/${txid}/retentativa/${due}`), 'data');
    for (let n = 1; n <= 3; n++) {
      const date = addDays(due, n);
      const retry = await call('POST', `/v2/cobr/${txid}/retentativa/${date}`);
      assert.equal(retry.status, 201, retry.text); // Bacen: 201
      assert.equal(retry.body.tentativas[n].tipo, 'RIFL');
      assert.equal(retry.body.tentativas[n].status, 'AGENDADA');
      expectInvalid(await call('POST', `/v2/cobr/${txid}/retentativa/${addDays(due, n + 1)}`), 'cobr.tentativas');
      await advanceTo(date);
      await waitFor(async () => {
        const r = await call('GET', `/v2/cobr/${txid}`);
        return r.body.tentativas[n].status === 'REJEITADA' && r.body;
      }, `retry ${n} fails`);
    }
    const final = (await call('GET', `/v2/cobr/${txid}`)).body;
    assert.equal(final.status, 'REJEITADA', 'no retry left');
    assert.equal(final.tentativas.length, 4);
    expectInvalid(await call('POST', `/v2/cobr/${txid}/retentativa/${addDays(due, 5)}`), 'cobr.status');
    assert.equal(await saldo(), before, 'nothing was received');
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});
