/**
 * The sandbox's institution speaks through the SPI boundary (docs/spi.md, "The sandbox's institution"): the pay
 * endpoint's Pix arrives as a pacs.008 answered with a pacs.002; a send to a key outside pixd leaves as a pacs.008
 * on the outbound queue, answered by the amount rules and acknowledged; a refund of the payer's Pix leaves as a
 * pacs.004. Every message read back here validates against the XSDs (parseSpiMessage refuses what does not).
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { outboxIdle } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { SANDBOX_PAYER_ISPB } from '../../src/platform/institution.ts';
import { buildStatusReport, newMsgId, parseSpiMessage } from '../../src/spi/messages.ts';
import { receiveSpiMessage } from '../../src/spi/inbound.ts';
import { answerOutbound, NO_ANSWER } from '../../src/spi/answers.ts';

interface Outbound {
  kind: string;
  xml: string;
  acked_at: Date | null;
  answer_status: string | null;
}

describe('the sandbox institution, through the SPI boundary', () => {
  let svc: TestService;
  let receiver: Receiver;
  let party: Party;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => party.http.request(method, path, { token, body });
  const saldo = async () => (await call('GET', '/v2/gn/saldo/')).body.saldo as string;
  const outbound = async (refId: string) =>
    (
      await svc.service.ctx.db.query<Outbound>(
        'select kind, xml, acked_at, answer_status from spi_outbound where ref_id = $1',
        [refId],
      )
    ).rows[0];
  const sendTo = async (idEnvio: string, valor: string) => {
    const res = await call('PUT', `/v2/gn/pix/${idEnvio}`, {
      valor,
      pagador: { chave: party.chaves[0] },
      favorecido: { chave: 'fora-do-pixd@example.com' },
    });
    assert.equal(res.status, 201, res.text);
    // Idle includes the institution in the node: the pacs.008 answered and acknowledged, the send concluded.
    await outboxIdle(svc);
    return (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).body;
  };

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    party = await svc.newParty();
    token = await party.token();
    // A send's outcome reaches its payer through the key's webhook, which a send therefore requires.
    await webhookApi(party).registerPix(`${receiver.url}/payer`);
  });
  afterEach(async () => {
    await assertLedgerBalanced(svc.service.ctx.db);
    await assertBalanceMatchesLines(svc.service.ctx.db, party.accountId, await saldo());
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  let paidEndToEndId: string;

  it('the pay endpoint delivers a pacs.008 from the sandbox payer, answered with a pacs.002 ACSP', async () => {
    const res = await call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor: '50.00' });
    assert.equal(res.status, 201, res.text);
    paidEndToEndId = res.body.endToEndId;
    assert.ok(paidEndToEndId.startsWith(`E${SANDBOX_PAYER_ISPB}`), 'the payer institution generated the id');
    const { rows } = await svc.service.ctx.db.query<{ kind: string; answer: string }>(
      'select kind, answer from spi_inbound where ref_id = $1',
      [paidEndToEndId],
    );
    assert.equal(rows[0].kind, 'pacs.008');
    const answer = parseSpiMessage(rows[0].answer);
    assert.equal(answer.kind === 'pacs.002' && answer.status, 'ACSP');
    assert.equal(await saldo(), '50.00');

    const refused = await call('POST', '/sandbox/pix/pay', { chave: 'ninguem@example.com', valor: '1.00' });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.violacoes[0].razao, 'chave_inexistente', 'the engine’s own reason, as before');
  });

  it('a send to a key outside pixd leaves as a pacs.008: ACSP up to 10.00, RJCT AM02 above; acknowledged', async () => {
    const done = await sendTo('spisbxok1', '5.00');
    assert.equal(done.status, 'REALIZADO');
    const sent = await outbound(done.endToEndId);
    const message = parseSpiMessage(sent.xml);
    assert.equal(message.kind === 'pacs.008' && message.creditor.chave, 'fora-do-pixd@example.com');
    assert.equal(sent.answer_status, 'ACSP');
    assert.notEqual(sent.acked_at, null, 'the pacs.008 acknowledged');

    const refused = await sendTo('spisbxrjct1', '15.00');
    assert.equal(refused.status, 'NAO_REALIZADO');
    assert.match(refused.motivo, /AM02: sandbox: valores de 10\.01 a 20\.00 não são realizados/);
    assert.equal((await outbound(refused.endToEndId)).answer_status, 'RJCT');
    assert.equal(await saldo(), '45.00', 'the refused send’s hold came back');
  });

  it('a refund of the payer’s Pix leaves as a pacs.004 (MD06) and is DEVOLVIDO on its ACSP', async () => {
    const res = await call('PUT', `/v2/pix/${paidEndToEndId}/devolucao/spisbx1`, { valor: '2.00' });
    assert.equal(res.status, 201, res.text);
    const rtrId = res.body.rtrId as string;
    await outboxIdle(svc);
    assert.equal((await call('GET', `/v2/pix/${paidEndToEndId}/devolucao/spisbx1`)).body.status, 'DEVOLVIDO');
    const back = await outbound(rtrId);
    const message = parseSpiMessage(back.xml);
    assert.equal(message.kind === 'pacs.004' && message.reason, 'MD06');
    assert.equal(message.kind === 'pacs.004' && message.toIspb, SANDBOX_PAYER_ISPB);
    assert.equal(back.answer_status, 'ACSP');
    assert.equal(await saldo(), '43.00');
  });

  it('sends answered together: each concluded once; a copy, a contradicting answer or the deadline changes nothing', async () => {
    const funded = await call('POST', '/sandbox/pix/pay', { chave: party.chaves[0], valor: '100.00' });
    assert.equal(funded.status, 201, funded.text);
    const valores = ['1.00', '15.00', '2.00', '1.00', '15.00', '3.00', '1.00', '2.00', '15.00', '1.00', '1.00', '2.00'];
    const ids = valores.map((_, n) => `spisbxbatch${n}`);
    await Promise.all(
      ids.map(async (idEnvio, n) => {
        const res = await call('PUT', `/v2/gn/pix/${idEnvio}`, {
          valor: valores[n],
          pagador: { chave: party.chaves[0] },
          favorecido: { chave: 'fora-do-pixd@example.com' },
        });
        assert.equal(res.status, 201, res.text);
      }),
    );
    await outboxIdle(svc);
    const reads = await Promise.all(
      ids.map(async (id) => (await call('GET', `/v2/gn/pix/enviados/id-envio/${id}`)).body),
    );
    assert.deepEqual(
      reads.map((r) => r.status),
      valores.map((v) => (v === '15.00' ? 'NAO_REALIZADO' : 'REALIZADO')),
    );
    for (const r of reads) assert.notEqual((await outbound(r.endToEndId)).acked_at, null, 'acknowledged');
    const balance = await saldo();
    assert.equal(balance, '129.00', '143.00 less the 14.00 realizados');

    // Every answer again at once, contradicting the first, beside the deadline's AB03: the first answer stands.
    const { rows } = await svc.service.ctx.db.query<{ id: number; msg_id: string; ref_id: string }>(
      'select id, msg_id, ref_id from spi_outbound where ref_id = any($1)',
      [reads.map((r) => r.endToEndId)],
    );
    const at = new Date();
    await Promise.all(
      rows.flatMap((row) => {
        const realizado = reads.find((r) => r.endToEndId === row.ref_id).status === 'REALIZADO';
        const answer = {
          msgId: newMsgId(SANDBOX_PAYER_ISPB),
          createdAt: at,
          originalMsgId: row.msg_id,
          originalMsgName: 'pacs.008.spi.1.13',
          originalId: row.ref_id,
        } as const;
        const contradicting = realizado
          ? buildStatusReport({ ...answer, status: 'RJCT', reason: { code: 'AM02' } })
          : buildStatusReport({ ...answer, status: 'ACSP', settledAt: at });
        const { db, clock } = svc.service.ctx;
        return [
          receiveSpiMessage(svc.service.ctx, contradicting),
          receiveSpiMessage(svc.service.ctx, contradicting),
          answerOutbound(db, clock, { id: Number(row.id) }, NO_ANSWER).then((outcome) =>
            assert.equal(outcome, 'already'),
          ),
        ];
      }),
    );
    await outboxIdle(svc);
    const again = await Promise.all(
      ids.map(async (id) => (await call('GET', `/v2/gn/pix/enviados/id-envio/${id}`)).body),
    );
    assert.deepEqual(
      again.map((r) => r.status),
      reads.map((r) => r.status),
    );
    assert.equal(await saldo(), balance, 'nothing moved twice');
    const entries = await svc.service.ctx.db.query<{ reference: string; n: number }>(
      `select reference, count(*)::int as n from journal_entries
        where reference = any($1) and kind in ('pix_enviado_liquidado', 'estorno_pix_enviado') group by reference`,
      [reads.map((r) => r.endToEndId)],
    );
    assert.equal(entries.rows.length, ids.length);
    assert.ok(
      entries.rows.every((row) => row.n === 1),
      'one settlement entry per send',
    );
  });
});
