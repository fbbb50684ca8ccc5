/**
 * Reconciliation reports end to end: validation, asynchronous generation through the outbox, the file
 * layout, and trailer totals checked against the journal itself.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { callerWithFreshToken, setClock as moveClock, type Call } from '../helpers/time-travel.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { brasiliaDate, brasiliaDay, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { generateReport } from '../../src/pix/reports/generator.ts';
import { TIPO_REGISTROS } from '../../src/pix/reports/record-types.ts';
import { formatAmount } from '../../src/platform/money.ts';
import { ledgerCode } from '../../src/platform/ledger/ledger.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { seedMovements } from '../../bench/scenarios/reconciliation-report.ts';

const POST = '/v2/gn/relatorios/extrato-conciliacao';
const ALL = Object.fromEntries(TIPO_REGISTROS.map((t) => [t, true]));

describe('reconciliation reports', () => {
  let svc: TestService;
  /** One account per test, all made before any test moves the clock (see time-travel.ts). */
  const parties: Party[] = [];
  before(async () => {
    svc = await startTestService();
    for (let i = 0; i < 5; i++) parties.push(await svc.newParty());
  });
  after(() => svc.close());

  const setClock = (iso: string) => moveClock(svc, iso);
  /** A day far enough ahead of every earlier test's clock. */
  let nextDay = toEpochDay(brasiliaDate(new Date())) + 10;
  const freshDay = () => fromEpochDay((nextDay += 10));
  const at = (date: string, time: string) => `${date}T${time}-03:00`;

  // The clock jumps days: every call gets a token issued now.
  const caller = callerWithFreshToken;

  /** POSTs and waits for the file; returns the request view and the file's lines. */
  async function reportOf(call: Call, dataMovimento: string, tipoRegistros: Record<string, boolean>) {
    const posted = await call('POST', POST, { dataMovimento, tipoRegistros });
    assert.equal(posted.status, 201, posted.text);
    const file = await waitFor(async () => {
      const res = await call('GET', `/v2/gn/relatorios/${posted.body.id}`);
      return res.status === 200 && res;
    }, 'report file');
    assert.match(String(file.headers['content-type']), /^text\/csv/);
    assert.equal(Number(file.headers['content-length']), Buffer.byteLength(file.text));
    assert.ok(file.text.endsWith('\n'));
    return {
      view: posted.body,
      lines: file.text
        .slice(0, -1)
        .split('\n')
        .map((l) => l.split(';')),
    };
  }

  /** What the journal says about the party's available account on a Brasília day, computed here independently. */
  async function journalDay(accountId: number, date: string) {
    const { start, end } = brasiliaDay(date);
    const { rows } = await svc.service.ctx.db.query<{ kind: string; credits: number; debits: number; n: number }>(
      `select e.kind, sum(greatest(l.amount_cents, 0))::bigint as credits, sum(greatest(-l.amount_cents, 0))::bigint as debits, count(*)::int as n
       from journal_lines l join journal_entries e on e.id = l.entry_id join ledger_accounts a on a.id = l.ledger_account_id
       where a.code = $1 and e.created_at >= $2 and e.created_at < $3 group by e.kind`,
      [ledgerCode.available(accountId), start, end],
    );
    const opening = await svc.service.ctx.db.query<{ total: number }>(
      `select coalesce(sum(l.amount_cents), 0)::bigint as total from journal_lines l join journal_entries e on e.id = l.entry_id join ledger_accounts a on a.id = l.ledger_account_id
       where a.code = $1 and e.created_at < $2`,
      [ledgerCode.available(accountId), start],
    );
    const byKind = Object.fromEntries(rows.map((r) => [r.kind, r]));
    const net = rows.reduce((acc, r) => acc + r.credits - r.debits, 0);
    return { byKind, opening: opening.rows[0].total, closing: opening.rows[0].total + net };
  }

  it('refuses what the interface calls an invalid request, with the property named', async () => {
    const [party, other] = parties;
    const call = caller(party);
    const today = brasiliaDate(svc.clock.now());
    const yesterday = fromEpochDay(toEpochDay(today) - 1);
    const cases: [unknown, string][] = [
      [{ tipoRegistros: { pixRecebido: true } }, 'dataMovimento'],
      [{ dataMovimento: yesterday, tipoRegistros: { pixRecebido: true }, extra: 1 }, 'extra'],
      [
        { dataMovimento: yesterday, tipoRegistros: { pixRecebido: true, pixQualquer: true } },
        'tipoRegistros.pixQualquer',
      ],
      [{ dataMovimento: yesterday, tipoRegistros: { pixRecebido: 'sim' } }, 'tipoRegistros.pixRecebido'],
      [{ dataMovimento: yesterday }, 'tipoRegistros'],
      [{ dataMovimento: '2025-02-30', tipoRegistros: { pixRecebido: true } }, 'dataMovimento'],
      [{ dataMovimento: today, tipoRegistros: { pixRecebido: true } }, 'dataMovimento'],
      [{ dataMovimento: fromEpochDay(toEpochDay(today) + 1), tipoRegistros: { pixRecebido: true } }, 'dataMovimento'],
    ];
    for (const [body, property] of cases) {
      const res = await call('POST', POST, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/ExtratoConciliacaoConsultaInvalida');
      assert.ok(
        res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === property),
        `${JSON.stringify(body)} -> ${res.text}`,
      );
    }
    const ok = await call('POST', POST, { dataMovimento: yesterday, tipoRegistros: { pixRecebido: true } });
    assert.equal(ok.status, 201, 'only pixRecebido is a valid request');
    assert.equal((await call('GET', '/v2/gn/relatorios/00000000-0000-4000-8000-000000000000')).status, 404);
    const foreign = await caller(other)('GET', `/v2/gn/relatorios/${ok.body.id}`);
    assert.equal(foreign.status, 404, "another account's report does not exist for the caller");
    assert.equal(foreign.body.type, 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado');
  });

  it('builds the day from the journal: layout, running balance, and a trailer that reconciles with the balance', async () => {
    const party = parties[2];
    const call = caller(party);
    const { conta } = (
      await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [party.accountId])
    ).rows[0];
    const day = freshDay();
    const previous = fromEpochDay(toEpochDay(day) - 1);
    const next = fromEpochDay(toEpochDay(day) + 1);
    const receive = async (valor: string) => {
      const res = await call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor });
      assert.equal(res.status, 201, res.text);
      return res.body.endToEndId as string;
    };

    setClock(at(previous, '23:00:00'));
    await receive('100.00'); // the day before: only in saldoDiaAnterior
    setClock(at(day, '00:30:00'));
    const e2e50 = await receive('50.00');
    setClock(at(day, '01:00:00'));
    const e2e20 = await receive('20.00');
    const refund = await call('PUT', `/v2/pix/${e2e20}/devolucao/r1`, { valor: '5.00' });
    assert.equal(refund.status, 201, refund.text);
    // The refund leaves as a pacs.004, DEVOLVIDO on the answer of the sandbox's institution in the node.
    await outboxIdle(svc);
    assert.equal((await call('GET', `/v2/pix/${e2e20}/devolucao/r1`)).body.status, 'DEVOLVIDO');
    setClock(at(day, '02:00:00'));
    assert.equal((await call('POST', '/sandbox/saldo/bloqueios', { tipo: 'judicial', valor: '10.00' })).status, 201);
    setClock(at(day, '03:00:00'));
    const schedule = await call('POST', '/sandbox/pix/schedules', {
      valor: '30.00',
      dataAgendamento: new Date(Date.parse(at(day, '04:00:00'))).toISOString(),
      favorecido: { nome: 'Fornecedor', chave: 'fornecedor@example.com' },
    });
    assert.equal(schedule.status, 201, schedule.text);
    setClock(at(day, '04:00:10'));
    await waitFor(
      async () =>
        (
          await svc.service.ctx.db.query<{ status: string }>(
            'select status from pix_schedules where end_to_end_id = $1',
            [schedule.body.end_to_end_id],
          )
        ).rows[0].status === 'waiting' || undefined,
      'schedule waiting',
    );
    setClock(at(day, '04:01:00'));
    await waitFor(
      async () =>
        (
          await svc.service.ctx.db.query<{ status: string }>(
            'select status from pix_schedules where end_to_end_id = $1',
            [schedule.body.end_to_end_id],
          )
        ).rows[0].status === 'finished' || undefined,
      'schedule sent',
    );
    setClock(at(day, '23:30:00')); // 02:30 UTC of the next day, still the Brasília day
    const e2eLate = await receive('1.23');
    setClock(at(next, '00:30:00'));
    await receive('7.00'); // the next day: not in this report
    setClock(at(next, '10:00:00'));

    // Held in the queue while the outbox is stopped: 202 with the status object.
    await svc.service.ctx.outbox.stop();
    const posted = await call('POST', POST, { dataMovimento: day, tipoRegistros: ALL });
    assert.equal(posted.status, 201, posted.text);
    assert.deepEqual(Object.keys(posted.body).sort(), ['dataSolicitacao', 'id', 'status']);
    assert.equal(posted.body.status, 'AGUARDANDO_PROCESSAMENTO');
    const pending = await call('GET', `/v2/gn/relatorios/${posted.body.id}`);
    assert.equal(pending.status, 202);
    assert.deepEqual(pending.body, posted.body);
    svc.service.ctx.outbox.start();
    const { lines } = await reportOf(call, day, ALL);

    const [header, ...rest] = lines;
    const trailer = rest.pop()!;
    assert.deepEqual(header.slice(0, 6), ['H', '1', posted.body.id, conta, header[4], day]);
    assert.equal(header.length, 8);
    assert.equal(header[7], TIPO_REGISTROS.join(','));
    assert.ok(rest.every((l) => l[0] === 'D' && l.length === 8));
    const summary = rest.map((l) => [l[1], l[3], l[4], l[5], l[6]]);
    assert.deepEqual(summary, [
      ['saldoDiaAnterior', '', '100.00', '100.00', ''],
      ['pixRecebido', 'C', '50.00', '150.00', e2e50],
      ['pixRecebido', 'C', '20.00', '170.00', e2e20],
      ['pixDevolucaoEnviada', 'D', '5.00', '165.00', rest[3][6]],
      // the judicial block (10.00) is no record type: not a line, but in outrosMovimentos and the running balance
      ['pixEnviadoChave', 'D', '30.00', '125.00', schedule.body.end_to_end_id],
      ['pixRecebido', 'C', '1.23', '126.23', e2eLate],
      ['saldoDia', '', '126.23', '126.23', ''],
    ]);
    assert.match(rest[3][6], /^D99999008/, 'a refund is identified by its rtrId');
    assert.ok(
      rest[1][2].startsWith(new Date(Date.parse(at(day, '00:30:00'))).toISOString().slice(0, 16)),
      `dataHora ${rest[1][2]} is the payment's instant, UTC`,
    );

    // Trailer: record count (H and T included), then totals that reconcile with the journal.
    assert.deepEqual(trailer, ['T', String(lines.length), '71.23', '35.00', '100.00', '-10.00', '126.23']);
    const journal = await journalDay(party.accountId, day);
    assert.equal(formatAmount(journal.opening), trailer[4]);
    assert.equal(formatAmount(journal.closing), trailer[6]);
    assert.equal(formatAmount(journal.byKind.pix_recebido.credits), '71.23');
    assert.equal(formatAmount(journal.byKind.bloqueio_judicial.debits), '10.00');
    assert.equal(
      (await call('GET', '/v2/gn/saldo/')).body.saldo,
      '133.23',
      "the balance now is saldoDia plus the next day's 7.00",
    );

    // Same parameters again: the finished report, at once.
    const again = await call('POST', POST, { dataMovimento: day, tipoRegistros: ALL });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, { ...posted.body, status: 'CONCLUIDO' });
    const { rows } = await svc.service.ctx.db.query<{ id: number }>('select id from reports where public_id = $1', [
      posted.body.id,
    ]);
    assert.equal(
      await generateReport(svc.service.ctx.db, svc.clock, rows[0].id),
      false,
      'a job delivered again does nothing',
    );

    // Only pixRecebido: the other movements leave the lines but stay in outrosMovimentos.
    const only = await reportOf(call, day, { pixRecebido: true, saldoDia: false });
    assert.equal(only.lines.length, 5);
    assert.deepEqual(
      only.lines.slice(1, 4).map((l) => [l[1], l[4]]),
      [
        ['pixRecebido', '50.00'],
        ['pixRecebido', '20.00'],
        ['pixRecebido', '1.23'],
      ],
    );
    assert.deepEqual(only.lines[4], ['T', '5', '71.23', '0.00', '100.00', '-45.00', '126.23']);
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('an account with no movements gets a file with the balances and an empty trailer', async () => {
    const party = parties[3];
    const { lines } = await reportOf(caller(party), fromEpochDay(toEpochDay(brasiliaDate(svc.clock.now())) - 1), {
      saldoDiaAnterior: true,
      saldoDia: true,
      pixRecebido: true,
    });
    assert.deepEqual(
      lines.slice(1).map((l) => l.slice(0, 2)),
      [
        ['D', 'saldoDiaAnterior'],
        ['D', 'saldoDia'],
        ['T', '4'],
      ],
    );
    assert.deepEqual(lines[3], ['T', '4', '0.00', '0.00', '0.00', '0.00', '0.00']);
  });

  it('streams a day larger than one page and one chunk, and its trailer matches the journal', async () => {
    const party = parties[4];
    const day = freshDay();
    const movements = Math.ceil(LIMITS.reportBatchRows * 2.5);
    await seedMovements(svc.service.ctx.db, party.accountId, day, movements);
    setClock(at(fromEpochDay(toEpochDay(day) + 1), '12:00:00'));
    const { view, lines } = await reportOf(caller(party), day, ALL);
    const { rows } = await svc.service.ctx.db.query<{ chunk_count: number; line_count: number }>(
      'select chunk_count, line_count from reports where public_id = $1',
      [view.id],
    );
    assert.ok(rows[0].chunk_count > 1, `${rows[0].chunk_count} chunk(s)`);
    assert.equal(rows[0].line_count, lines.length);

    const journal = await journalDay(party.accountId, day);
    const trailer = lines.at(-1)!;
    const data = lines.slice(1, -1);
    const count = (tipo: string) => data.filter((l) => l[1] === tipo).length;
    assert.equal(count('pixRecebido'), journal.byKind.pix_recebido.n);
    assert.equal(count('pixEnviadoChave'), journal.byKind.pix_enviado_chave.n);
    assert.equal(count('pixDevolucaoEnviada'), journal.byKind.pix_devolvido.n);
    assert.equal(data.length, movements - journal.byKind.bloqueio_med.n + 2);
    assert.equal(trailer[1], String(lines.length));
    assert.equal(trailer[2], formatAmount(journal.byKind.pix_recebido.credits));
    assert.equal(
      trailer[3],
      formatAmount(journal.byKind.pix_enviado_chave.debits + journal.byKind.pix_devolvido.debits),
    );
    assert.equal(trailer[5], formatAmount(-journal.byKind.bloqueio_med.debits));
    assert.equal(trailer[6], formatAmount(journal.closing));
    // The seed's last movement (25,000 is a multiple of 20) is a Pix sent, hence a line.
    assert.equal(data.at(-2)![5], trailer[6], "the last movement's running balance is the day's balance");
    // Journal order is kept across page boundaries: entry ids strictly increase.
    const ids = data.filter((l) => l[7]).map((l) => Number(l[7]));
    assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]));
  });
});
