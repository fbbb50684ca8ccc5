/**
 * A request has a deadline (issue 26 item 4): a send or a refund whose transaction cannot finish in time (here
 * a row lock held from a second connection, as a stalled session after a failover holds one) rolls back and
 * answers 503 with Retry-After in its family's format, with nothing written; the idempotent retry (the same
 * idEnvio, the same refund id) then does the work once and answers the first outcome after that.
 * PostgreSQL only: the second connection that holds the lock is what the embedded database cannot have.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi, type WebhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';

/** Short, so the test is; the lock is held well past it. */
const DEADLINE_MS = 1_000;
/** A 503 comes at the deadline, not much later: a statement is bounded by the time left. */
const ANSWER_SLACK_MS = 2_500;

describe('request deadline', {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only (a second connection holds the lock)',
}, () => {
  let svc: TestService;
  let receiver: Receiver;
  let payer: Party;
  let payee: Party;
  let payerApi: WebhookApi;
  let blocker: pg.Client;

  /** Holds `lockSql`'s row lock from another connection while `during` runs, then lets it go. */
  const holdingLock = async <T>(lockSql: string, params: unknown[], during: () => Promise<T>): Promise<T> => {
    await blocker.query('begin');
    try {
      const { rowCount } = await blocker.query(lockSql, params);
      assert.equal(rowCount, 1, 'the row to lock exists');
      return await during();
    } finally {
      await blocker.query('rollback');
    }
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const startedMs = Date.now();
    const result = await work();
    return { result, elapsedMs: Date.now() - startedMs };
  };
  /** The payer's calls, with the response headers (Retry-After). */
  const call = async (method: string, path: string, body?: unknown) =>
    payer.http.request(method, path, { token: await payer.token(), body });
  const saldo = async () => (await payerApi.call('GET', '/v2/gn/saldo/')).body.saldo as string;

  before(async () => {
    svc = await startTestService({ PIXD_REQUEST_DEADLINE_MS: String(DEADLINE_MS) });
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    payer = await svc.newParty();
    payee = await svc.newParty();
    payerApi = webhookApi(payer);
    await payerApi.registerPix(`${receiver.url}/payer`);
    const funded = await payerApi.call('POST', '/sandbox/pix/pay', { chave: payer.chaves[0], valor: '50.00' });
    assert.equal(funded.status, 201, funded.text);
    blocker = new pg.Client({ connectionString: svc.config.databaseUrl });
    await blocker.connect();
  });
  after(async () => {
    await blocker?.end();
    await receiver?.close();
    await svc?.close();
  });

  it('a send past its deadline answers 503 with Retry-After, writes nothing, and its retry sends once', async () => {
    const idEnvio = `prazo${Date.now().toString(36)}`;
    const body = { valor: '3.00', pagador: { chave: payer.chaves[0] }, favorecido: { chave: payee.chaves[0] } };
    const send = () => call('PUT', `/v2/gn/pix/${idEnvio}`, body);
    const { result: late, elapsedMs } = await timed(() =>
      holdingLock('select id from accounts where id = $1 for update', [payer.accountId], send),
    );
    assert.equal(late.status, 503, late.text);
    assert.equal(late.body.nome, 'servico_indisponivel', 'the /v2/gn family format');
    assert.match(late.body.mensagem, /prazo/);
    assert.equal(late.headers['retry-after'], '1');
    assert.ok(elapsedMs >= DEADLINE_MS && elapsedMs < DEADLINE_MS + ANSWER_SLACK_MS, `answered in ${elapsedMs} ms`);
    const written = await svc.service.ctx.db.query('select 1 from sent_pix where id_envio = $1', [idEnvio]);
    assert.equal(written.rows.length, 0, 'nothing written');
    assert.equal(await saldo(), '50.00', 'nothing held');

    const first = await send();
    assert.equal(first.status, 201, first.text);
    const again = await send();
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.e2eId, first.body.e2eId, 'the retry answers the first outcome');
    const rows = await svc.service.ctx.db.query('select 1 from sent_pix where id_envio = $1', [idEnvio]);
    assert.equal(rows.rows.length, 1, 'sent once');
    await waitFor(async () => (await saldo()) === '47.00', 'the send to settle');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('a refund past its deadline answers 503 in the problem format, writes nothing, and its retry refunds once', async () => {
    const paid = await payerApi.payNewCharge('20.00');
    const refund = () => call('PUT', `/v2/pix/${paid.endToEndId}/devolucao/prazo1`, { valor: '2.00' });
    const { result: late, elapsedMs } = await timed(() =>
      holdingLock('select id from received_pix where end_to_end_id = $1 for update', [paid.endToEndId], refund),
    );
    assert.equal(late.status, 503, late.text);
    assert.equal(late.body.type, 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel', late.text);
    assert.equal(late.headers['retry-after'], '1');
    assert.ok(elapsedMs < DEADLINE_MS + ANSWER_SLACK_MS, `answered in ${elapsedMs} ms`);
    const written = await svc.service.ctx.db.query(`select 1 from refunds where refund_id = 'prazo1'`);
    assert.equal(written.rows.length, 0, 'nothing written');

    const first = await refund();
    assert.equal(first.status, 201, first.text);
    const again = await refund();
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.rtrId, first.body.rtrId, 'the retry answers the first outcome');
    await waitFor(
      async () =>
        (await payerApi.call('GET', `/v2/pix/${paid.endToEndId}/devolucao/prazo1`)).body.status === 'DEVOLVIDO',
      'the refund to settle',
    );
    await assertLedgerBalanced(svc.service.ctx.db);
  });
});
