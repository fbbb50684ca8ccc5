/**
 * Scheduled Pix: creation (sandbox endpoint, operator API through the `pixd` CLI), the scheduler's
 * transitions as the service clock moves, the ledger debit, and the /v1 list and read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { LIMITS } from '../../src/platform/limits.ts';

const HOUR = 3600;
const TXID = (n: number) => `Agendamento${String(n).padStart(3, '0')}AbcdefghijklmnopQ`;

describe('scheduled Pix', () => {
  let svc: TestService;
  let payer: Party;
  let other: Party;
  let listOnly: Party;
  let call: Call;
  const iso = (secondsFromNow: number, nowMs = svc.clock.nowMs()) =>
    new Date(nowMs + secondsFromNow * 1000).toISOString();
  const schedule = (body: Record<string, unknown>) => call('POST', '/sandbox/pix/schedules', body);
  const read = (txid: string, as = call) => as('GET', `/v1/pix/schedules/${txid}`);
  const statusOf = async (txid: string) => (await read(txid)).body.data[0].status as string;
  const saldo = async () => (await call('GET', '/v2/gn/saldo/')).body.saldo as string;
  // Both ends from one reading of the clock, which runs: read twice, a 31-day range came out a millisecond longer.
  const range = (from: number, to: number, nowMs = svc.clock.nowMs()) =>
    `inicio=${encodeURIComponent(iso(from, nowMs))}&fim=${encodeURIComponent(iso(to, nowMs))}`;

  before(async () => {
    svc = await startTestService();
    // Every party before the clock moves (certificates, see time-travel.ts); the clock moves hours, so fresh tokens.
    payer = await svc.newParty();
    other = await svc.newParty();
    listOnly = await svc.newParty({ scopes: ['cob.read'] });
    call = callerWithFreshToken(payer);
  });
  after(() => svc.close());

  it('refuses schedules it could never run', async () => {
    const favorecido = { nome: 'Fornecedor', chave: 'fornecedor@example.com' };
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          valor: '1.00',
          dataAgendamento: iso(HOUR),
          favorecido: { ...favorecido, contaBanco: { ispb: '12345678', agencia: '1', conta: '123' } },
        },
        'favorecido',
      ],
      [{ valor: '1.00', dataAgendamento: iso(HOUR), favorecido: { nome: 'Ninguém' } }, 'favorecido'],
      [{ valor: '1.00', dataAgendamento: iso(-1), favorecido }, 'dataAgendamento'],
      [
        { valor: '1.00', dataAgendamento: iso(LIMITS.scheduledPixMaxAheadDays * 86400 + HOUR), favorecido },
        'dataAgendamento',
      ],
      [{ valor: '0.00', dataAgendamento: iso(HOUR), favorecido }, 'valor'],
      [{ valor: '1', dataAgendamento: iso(HOUR), favorecido }, 'valor'],
      [{ valor: '1.00', dataAgendamento: iso(HOUR), favorecido, txid: 'curto' }, 'txid'],
      [
        {
          valor: '1.00',
          dataAgendamento: iso(HOUR),
          favorecido: { ...favorecido, contaBanco: undefined, chave: undefined, conta: '1' },
        },
        'favorecido.conta',
      ],
    ];
    for (const [body, property] of cases) {
      const res = await schedule(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/AgendamentoInvalido');
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
        `${JSON.stringify(body)}: ${res.text}`,
      );
    }
    const first = await schedule({ valor: '1.00', dataAgendamento: iso(30 * 86400), favorecido, txid: TXID(0) });
    assert.equal(first.status, 201, first.text);
    const duplicate = await schedule({ valor: '2.00', dataAgendamento: iso(30 * 86400), favorecido, txid: TXID(0) });
    assert.equal(duplicate.status, 400);
    assert.equal(duplicate.body.violacoes[0].propriedade, 'txid');
  });

  it('moves scheduled -> waiting -> finished on the clock, debiting the ledger; rejects what the balance does not cover', async () => {
    assert.equal((await call('POST', '/sandbox/pix/pay', { chave: payer.chaves[0], valor: '100.00' })).status, 201);
    const byKey = await schedule({
      txid: TXID(1),
      valor: '40.00',
      dataAgendamento: iso(HOUR),
      favorecido: { nome: 'Fornecedor Um', chave: 'fornecedor@example.com' },
    });
    assert.equal(byKey.status, 201, byKey.text);
    const byBank = await schedule({
      valor: '30.00',
      dataAgendamento: iso(HOUR),
      favorecido: { nome: 'Fornecedor Dois', contaBanco: { ispb: '12345678', agencia: '0001', conta: '9876543' } },
    });
    assert.equal(byBank.status, 201, byBank.text);
    const tooMuch = await schedule({
      txid: TXID(2),
      valor: '50.00',
      dataAgendamento: iso(2 * HOUR),
      favorecido: { nome: 'Fornecedor Três', chave: '+5511999998888' },
    });
    assert.equal(tooMuch.status, 201, tooMuch.text);

    const res = await read(TXID(1));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['correlationId', 'data', 'responseTime', 'total']);
    assert.equal(res.body.total, 1);
    assert.deepEqual(res.body.data[0], {
      txid: TXID(1),
      end_user_account: 'fornecedor@example.com',
      receiver_name: 'Fornecedor Um',
      end_to_end_id: byKey.body.end_to_end_id,
      status: 'scheduled',
      value: 40,
      scheduling_date: byKey.body.scheduling_date,
      error_code: null,
      error_description: null,
    });
    assert.match(byKey.body.end_to_end_id, /^E99999008\d{12}[A-Z0-9]{11}$/, 'sent by this institution');
    assert.equal(byBank.body.end_user_account, '12345678/0001/9876543');
    assert.equal(byBank.body.txid, null);

    svc.advance(HOUR + 1);
    await waitFor(async () => (await statusOf(TXID(1))) === 'waiting', 'waiting');
    assert.equal(await saldo(), '100.00', 'nothing is debited while waiting');
    svc.advance(LIMITS.scheduledPixSendDelaySeconds);
    await waitFor(async () => (await statusOf(TXID(1))) === 'finished', 'finished');
    await waitFor(async () => (await saldo()) === '30.00', 'both schedules of the hour debited');
    // Both were due at the same instant: the outbox may run them in either order.
    const entries = await svc.service.ctx.db.query<{ kind: string; reference: string }>(
      'select kind, reference from journal_entries where account_id = $1 and kind like $2 order by kind',
      [payer.accountId, 'pix_enviado%'],
    );
    assert.deepEqual(entries.rows, [
      { kind: 'pix_enviado_chave', reference: byKey.body.end_to_end_id },
      { kind: 'pix_enviado_dados_bancarios', reference: byBank.body.end_to_end_id },
    ]);

    svc.advance(HOUR);
    await waitFor(async () => (await statusOf(TXID(2))) === 'waiting', 'third waiting');
    svc.advance(LIMITS.scheduledPixSendDelaySeconds);
    const rejected = await waitFor(async () => {
      const item = (await read(TXID(2))).body.data[0];
      return item.status === 'rejected' && item;
    }, 'rejected');
    assert.equal(rejected.error_code, 'saldo_insuficiente');
    assert.match(rejected.error_description, /insuficiente/);
    assert.equal(await saldo(), '30.00');
    await assertLedgerBalanced(svc.service.ctx.db);
    await assertBalanceMatchesLines(svc.service.ctx.db, payer.accountId, await saldo());
  });

  it('lists by scheduling date in the wrapper envelope, at most 31 days, with pages', async () => {
    const all = await call('GET', `/v1/pix/schedules?${range(-10 * 86400, 20 * 86400)}`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(Object.keys(all.body).sort(), ['correlationId', 'data', 'limit', 'page', 'responseTime', 'total']);
    assert.equal(all.body.total, 3);
    assert.equal(all.body.page, 1);
    assert.equal(all.body.limit, LIMITS.scheduledPixPageSizeDefault);
    assert.deepEqual(
      all.body.data.map((s: { status: string }) => s.status),
      ['finished', 'finished', 'rejected'],
    );
    const page2 = await call('GET', `/v1/pix/schedules?${range(-10 * 86400, 20 * 86400)}&limit=2&page=2`);
    assert.equal(page2.body.data.length, 1);
    assert.equal(page2.body.data[0].txid, TXID(2));
    assert.equal(
      (await call('GET', `/v1/pix/schedules?${range(0, 31 * 86400)}`)).body.total,
      1,
      '31 days is allowed; the one 30 days ahead',
    );

    const tooLong = await call('GET', `/v1/pix/schedules?${range(0, 31 * 86400 + 1)}`, undefined);
    assert.equal(tooLong.status, 400);
    assert.deepEqual(Object.keys(tooLong.body).sort(), ['correlationId', 'error', 'responseTime']);
    assert.equal(tooLong.body.error.status, 400);
    assert.equal(tooLong.body.error.violations[0].property, 'querystring.fim');
    assert.equal((await call('GET', `/v1/pix/schedules?${range(0, -1)}`)).status, 400, 'fim before inicio');
    assert.equal(
      (await call('GET', `/v1/pix/schedules?inicio=${encodeURIComponent(iso(0))}`)).status,
      400,
      'fim is required',
    );
    assert.equal((await call('GET', `/v1/pix/schedules?${range(0, 1)}&limit=0`)).status, 400);
    assert.equal(
      (await callerWithFreshToken(other)('GET', `/v1/pix/schedules?${range(-10 * 86400, 20 * 86400)}`)).body.total,
      0,
      "only the caller's schedules",
    );
  });

  it("reads by txid: 26 to 35 letters and digits, 404 for unknown or another account's", async () => {
    assert.equal((await read('A'.repeat(LIMITS.txidMinChars - 1))).status, 400);
    assert.equal((await read('A'.repeat(LIMITS.txidMaxChars + 1))).status, 400);
    assert.equal((await read(`${'A'.repeat(LIMITS.txidMinChars)}-`)).status, 400);
    const unknown = await read('A'.repeat(LIMITS.txidMinChars));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.status, 404);
    assert.equal((await read(TXID(1), callerWithFreshToken(other))).status, 404);
  });

  it('requires the scopes as listed: cobv.read to list, cob.read to read', async () => {
    const as = callerWithFreshToken(listOnly);
    assert.equal((await as('GET', `/v1/pix/schedules?${range(0, 1)}`)).status, 403);
    assert.equal((await read('A'.repeat(LIMITS.txidMinChars), as)).status, 404);
  });

  it('pixd schedule create goes through the operator API of the running server', async () => {
    const { conta } = (
      await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [payer.accountId])
    ).rows[0];
    // Asynchronous: the server answering the CLI runs in this process.
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.resolve('bin/pixd.js'), 'schedule', 'create', ...args],
          { env: { ...process.env, PIXD_DATA_DIR: svc.data.dataDir }, encoding: 'utf8', timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
      });
    const created = await cli(
      '--conta',
      conta,
      '--valor',
      '12.34',
      '--data',
      iso(HOUR),
      '--favorecido',
      'Via CLI',
      '--ispb',
      '87654321',
      '--agencia',
      '12',
      '--conta-favorecido',
      '555',
      '--txid',
      TXID(3),
      '--chave-pagador',
      payer.chaves[0],
      '--json',
    );
    assert.equal(created.status, 0, created.stderr);
    const view = JSON.parse(created.stdout);
    assert.equal(view.status, 'scheduled');
    assert.equal(view.end_user_account, '87654321/12/555');
    assert.equal((await read(TXID(3))).body.data[0].value, 12.34);
    const stored = await svc.service.ctx.db.query<{ chave: string }>(
      'select chave from pix_schedules where end_to_end_id = $1',
      [view.end_to_end_id],
    );
    assert.equal(stored.rows[0].chave, payer.chaves[0], 'the sender key whose webhook is told when it is sent');
    const refused = await cli(
      '--conta',
      conta,
      '--valor',
      '1.00',
      '--data',
      iso(-HOUR),
      '--favorecido',
      'Passado',
      '--chave',
      'x@example.com',
    );
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /dataAgendamento/);
    const noAccount = await cli(
      '--conta',
      '1',
      '--valor',
      '1.00',
      '--data',
      iso(HOUR),
      '--favorecido',
      'X',
      '--chave',
      'x@example.com',
    );
    assert.equal(noAccount.status, 1);
    assert.match(noAccount.stderr, /conta/i);
  });
});
