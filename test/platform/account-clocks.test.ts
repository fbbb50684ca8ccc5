/**
 * Per-account sandbox clocks (issue 13, item 10): two accounts, A moves its own clock through
 * /sandbox/clock/advance, and only A's charges expire, A's scheduled Pix runs, A's cobv goes past its last
 * payable day and A's webhook retry fires; B's stay where real time has them. Tokens of both live on real
 * time, so the tokens taken before any move still work after it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { LIMITS } from '../../src/platform/limits.ts';

const HOUR = 3600;
const DAY = 86_400;
let serial = 0;
const newTxid = (prefix: string) => `${prefix}${String(++serial).padStart(4, '0')}`.padEnd(30, '0');

describe('per-account sandbox clocks', () => {
  let svc: TestService;
  let a: Party;
  let b: Party;
  let apiA: WebhookApi;
  let apiB: WebhookApi;
  let receiver: Receiver;
  /** Tokens taken before any clock moved: they must outlive every move (real time). */
  const tokens = new Map<Party, string>();
  const call = (party: Party, method: string, path: string, body?: unknown) =>
    party.http.request(method, path, { token: tokens.get(party)!, body });
  const clockOf = async (party: Party) => {
    const res = await call(party, 'GET', '/sandbox/clock');
    assert.equal(res.status, 200, res.text);
    return res.body as { agora: string; deslocamentoSegundos: number };
  };
  const advance = async (party: Party, segundos: number) => {
    const res = await call(party, 'POST', '/sandbox/clock/advance', { segundos });
    assert.equal(res.status, 200, res.text);
    return res.body as { agora: string; deslocamentoSegundos: number };
  };
  const createCob = async (party: Party, expiracao: number) => {
    const res = await call(party, 'POST', '/v2/cob', {
      calendario: { expiracao },
      valor: { original: '50.00' },
      chave: party.chaves[0],
    });
    assert.equal(res.status, 201, res.text);
    return res.body as { txid: string; pixCopiaECola: string };
  };
  const saldo = async (party: Party) => (await call(party, 'GET', '/v2/gn/saldo')).body.saldo as string;

  before(async () => {
    setWebhookSettings({ deliveryTimeoutMs: 400 });
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    a = await svc.newParty();
    b = await svc.newParty();
    for (const party of [a, b]) tokens.set(party, await party.token());
    apiA = webhookApi(a);
    apiB = webhookApi(b);
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it("moves only the caller's clock, and a charge expires on its receiver's clock whoever pays it", async () => {
    const cobA = await createCob(a, HOUR);
    const cobB = await createCob(b, HOUR);
    const moved = await advance(a, HOUR + 1);
    assert.equal(moved.deslocamentoSegundos, HOUR + 1);
    assert.ok(Date.parse(moved.agora) - Date.now() >= HOUR * 1000, "A's clock is an hour ahead");
    const still = await clockOf(b);
    assert.equal(still.deslocamentoSegundos, 0, "B's clock did not move");
    assert.ok(Math.abs(Date.parse(still.agora) - Date.now()) < 5_000, 'B is on real time');

    // A's charge is expired for A and for B paying its QR code; B's is not, even when A (moved) pays it.
    const own = await call(a, 'POST', '/sandbox/pix/pay', { txid: cobA.txid });
    assert.equal(own.status, 400, own.text);
    assert.equal(own.body.violacoes[0].razao, 'cobranca_expirada');
    const byB = await call(b, 'POST', '/sandbox/pix/pay', { pixCopiaECola: cobA.pixCopiaECola });
    assert.equal(byB.status, 400, byB.text);
    assert.equal(byB.body.violacoes[0].razao, 'cobranca_expirada', "on A's clock though B pays");
    const byA = await call(a, 'POST', '/sandbox/pix/pay', { pixCopiaECola: cobB.pixCopiaECola });
    assert.equal(byA.status, 201, `on B's clock though A pays: ${byA.text}`);
    assert.equal((await call(b, 'GET', `/v2/cob/${cobB.txid}`)).body.status, 'CONCLUIDA');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it("runs A's scheduled Pix when A's clock passes its date, not B's", async () => {
    for (const party of [a, b]) {
      const funded = await call(party, 'POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor: '100.00' });
      assert.equal(funded.status, 201, funded.text);
    }
    const before = { a: await saldo(a), b: await saldo(b) };
    const scheduleAt = async (party: Party) => {
      const at = new Date(Date.parse((await clockOf(party)).agora) + HOUR * 1000).toISOString();
      const res = await call(party, 'POST', '/sandbox/pix/schedules', {
        valor: '10.00',
        dataAgendamento: at,
        favorecido: { nome: 'Fornecedor', chave: 'fornecedor@example.com' },
      });
      assert.equal(res.status, 201, res.text);
      return res.body as { end_to_end_id: string };
    };
    const statusOf = async (party: Party, e2e: string) => {
      const { rows } = await svc.service.ctx.db.query<{ status: string }>(
        'select status from pix_schedules where end_to_end_id = $1',
        [e2e],
      );
      assert.ok(rows[0], `schedule ${e2e} of account ${party.accountId}`);
      return rows[0].status;
    };
    const ofA = await scheduleAt(a);
    const ofB = await scheduleAt(b);
    await advance(a, HOUR + LIMITS.scheduledPixSendDelaySeconds + 1);
    await waitFor(async () => (await statusOf(a, ofA.end_to_end_id)) === 'finished', "A's schedule finished");
    await waitFor(async () => (await saldo(a)) !== before.a, "A's balance debited");
    // Everything due on the service clock has run: had B's schedule been due, it would have finished too.
    await outboxIdle(svc);
    assert.equal(await statusOf(b, ofB.end_to_end_id), 'scheduled', "B's schedule still waits for its date");
    assert.equal(await saldo(b), before.b, "B's balance untouched");
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, a.accountId, await saldo(a));
    await assertBalanceMatchesLines(db, b.accountId, await saldo(b));
    await assertLedgerBalanced(db);
  });

  it("takes A's cobv past its last payable day on A's clock, B's same-day cobv stays payable", async () => {
    const cobv = async (party: Party) => {
      const today = brasiliaDate(new Date(Date.parse((await clockOf(party)).agora)));
      const txid = newTxid('Vencimento');
      const res = await call(party, 'PUT', `/v2/cobv/${txid}`, {
        calendario: { dataDeVencimento: fromEpochDay(toEpochDay(today) + 1), validadeAposVencimento: 0 },
        devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
        valor: { original: '30.00' },
        chave: party.chaves[0],
      });
      assert.equal(res.status, 201, res.text);
      return txid;
    };
    // B's due date is tomorrow in real time; A's is tomorrow on A's clock, which then moves four days on: past
    // the last payable day whatever today's weekday (a Saturday due date moves to Monday, today + 3 at most).
    const ofA = await cobv(a);
    const ofB = await cobv(b);
    await advance(a, 4 * DAY);
    const late = await call(a, 'POST', '/sandbox/pix/pay', { txid: ofA });
    assert.equal(late.status, 400, late.text);
    assert.equal(late.body.violacoes[0].razao, 'cobranca_expirada');
    const onTime = await call(b, 'POST', '/sandbox/pix/pay', { txid: ofB });
    assert.equal(onTime.status, 201, onTime.text);
    assert.equal(onTime.body.valor, '30.00', "no fine or interest: not yet due on B's clock");
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it("fires A's webhook retry when A's clock moves, B's only when B's does", async () => {
    await apiA.registerPix(`${receiver.url}/a`);
    await apiB.registerPix(`${receiver.url}/b`);
    await receiver.down();
    let pixA: { endToEndId: string };
    let pixB: { endToEndId: string };
    try {
      pixA = await apiA.payNewCharge('41.00');
      pixB = await apiB.payNewCharge('42.00');
      for (const [api, pix] of [
        [apiA, pixA],
        [apiB, pixB],
      ] as const)
        await waitFor(async () => {
          const d = (await api.deliveries()).find((x) => x.assunto === pix.endToEndId);
          return d?.tentativas.length === 1 && d.ultimoErro && d;
        }, 'a first failed attempt');
    } finally {
      await receiver.up();
    }
    // The next attempt is shown on each account's own clock: a minute after its failed attempt.
    const pending = (await apiA.deliveries()).find((x) => x.assunto === pixA.endToEndId);
    const gap = Date.parse(pending.proximaTentativa) - Date.parse(pending.tentativas[0].horario);
    assert.ok(gap >= 59_000 && gap < 120_000, `next attempt a minute later on A's clock (${gap} ms)`);

    await advance(a, 61);
    const [toA] = await receiver.waitForCalls(1, '/a/pix');
    assert.equal(toA.body.pix[0].endToEndId, pixA.endToEndId);
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/b/pix').length, 0, "B's retry is not due on B's clock");
    await advance(b, 61);
    const [toB] = await receiver.waitForCalls(1, '/b/pix');
    assert.equal(toB.body.pix[0].endToEndId, pixB.endToEndId);
  });

  it('puts a clock back to real time, and the tokens of both accounts live on real time throughout', async () => {
    const reset = await call(a, 'POST', '/sandbox/clock/reset');
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.deslocamentoSegundos, 0);
    assert.ok(Math.abs(Date.parse(reset.body.agora) - Date.now()) < 5_000);
    // The tokens were issued before A moved days ahead: still valid for both.
    for (const party of [a, b]) {
      const res = await call(party, 'GET', '/v2/cob?inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z');
      assert.equal(res.status, 200, res.text);
    }
    assert.equal(svc.clock.offset, 0, 'no service-wide move: the service itself stayed on real time');
  });
});
