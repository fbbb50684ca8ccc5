/**
 * The automatic-Pix journey driven by the official Efí Node SDK (`sdk-node-apis-efi`), unchanged, against a
 * real pixd node: recurrence, request to the payer's institution, approval, a recurring charge settled on its
 * due date, and a failing one retried. The payer's side and the clock are the sandbox tools (no SDK method
 * exists for them); everything the receiver does is an SDK call. Webhooks reach a local mutual-TLS receiver.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EfiPay } from './efipay.ts';
import { pointSdkAt } from './point-sdk.ts';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import { recBody } from '../pix/rec-fixtures.ts';

describe('automatic Pix through the official SDK', () => {
  let svc: TestService;
  let receiver: Receiver;
  let restore: () => void;
  let sandbox: Call;
  let conta: string;
  /** A new SDK client: its token is issued at the account's current time (the clock moves by days here). */
  const sdk = () => sdkFor(svc);
  const today = async () => brasiliaDate(new Date((await sandbox('GET', '/sandbox/clock')).body.agora));
  const businessDayIn = async (days: number) => {
    let day = toEpochDay(await today()) + days;
    while (!isBusinessDay(day)) day++;
    return fromEpochDay(day);
  };
  const advanceTo = async (date: string) => {
    const now = Date.parse((await sandbox('GET', '/sandbox/clock')).body.agora);
    const res = await sandbox('POST', '/sandbox/clock/advance', {
      segundos: Math.ceil((Date.parse(`${date}T04:00:00Z`) - now) / 1000),
    });
    assert.equal(res.status, 200, res.text);
  };
  const approvedRecurrence = async (efi: EfiPay, extra: Record<string, unknown>) => {
    const rec = await efi.pixCreateRecurrenceAutomatic(
      {},
      recBody({ calendario: { dataInicial: await today(), periodicidade: 'SEMANAL' }, ...extra }),
    );
    const expira = new Date(Date.now() + 86_400_000 * 30).toISOString();
    const solic = await efi.pixCreateRequestRecurrenceAutomatic(
      {},
      {
        idRec: rec.idRec,
        calendario: { dataExpiracaoSolicitacao: expira },
        destinatario: { cpf: '45164632481', conta: '998877', ispbParticipante: '12345678', agencia: '0001' },
      },
    );
    await waitFor(
      async () =>
        (await efi.pixDetailRequestRecurrenceAutomatic({ idSolicRec: solic.idSolicRec })).status === 'RECEBIDA',
      'the request reaches the payer',
    );
    const accepted = await sandbox('POST', `/sandbox/solicrec/${solic.idSolicRec}/aceitar`);
    assert.equal(accepted.status, 200, accepted.text);
    return rec.idRec as string;
  };

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    restore = pointSdkAt(svc.baseUrl, svc.caPem);
    sandbox = callerWithFreshToken(svc.demo);
    const { rows } = await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
      svc.demo.accountId,
    ]);
    conta = rows[0].conta;
  });
  after(async () => {
    restore?.();
    await receiver?.close();
    await svc?.close();
  });

  it('rec → solicrec → accepted → APROVADA (/rec) → cobr settled on its date (/cobr) → balance and Pix', async () => {
    const efi = sdk();
    await efi.pixConfigWebhookRecurrenceAutomatic({}, { webhookUrl: `${receiver.url}/sdk` });
    await efi.pixConfigWebhookAutomaticCharge({}, { webhookUrl: `${receiver.url}/sdk` });
    const idRec = await approvedRecurrence(efi, { valor: { valorRec: '7.50' } });
    const rec = await efi.pixDetailRecurrenceAutomatic({ idRec });
    assert.equal(rec.status, 'APROVADA');
    assert.equal(rec.ativacao.tipoJornada, 'JORNADA_1');
    await waitFor(
      async () =>
        receiver
          .callsTo('/sdk/rec')
          .find((c) => c.body.recs[0].idRec === idRec && c.body.recs[0].status === 'APROVADA'),
      'the /rec webhook of the approval',
    );

    const txid = `SdkCobr${Date.now().toString(36)}`.padEnd(30, '0');
    const due = await businessDayIn(3);
    const cobr = await efi.pixCreateAutomaticChargeTxid(
      { txid },
      {
        idRec,
        calendario: { dataDeVencimento: due },
        valor: { original: '7.50' },
        ajusteDiaUtil: false,
        recebedor: { conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
      },
    );
    assert.equal(cobr.status, 'CRIADA');
    const before = Number((await efi.getAccountBalance()).saldo);
    await advanceTo(due);
    const later = sdk();
    const paid = await waitFor(async () => {
      const c = await later.pixDetailAutomaticCharge({ txid });
      return c.status === 'CONCLUIDA' && c;
    }, 'CONCLUIDA on the due date');
    await waitFor(
      async () =>
        receiver
          .callsTo('/sdk/cobr')
          .find((c) => c.body.cobsr[0].txid === txid && c.body.cobsr[0].status === 'CONCLUIDA'),
      'the /cobr webhook of the settlement',
    );
    assert.equal(Number((await later.getAccountBalance()).saldo), before + 7.5, 'the balance moved by the amount');
    // The SDK's types leave out `pix` of CobRCompleta (the standard has it).
    const { pix: settled } = paid as unknown as { pix: { endToEndId: string }[] };
    const pix = await later.pixDetailReceived({ e2eId: settled[0].endToEndId });
    assert.equal(pix.txid, txid);
    assert.equal(pix.valor, '7.50');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('a failing charge is retried under PERMITE_3R_7D', async () => {
    const efi = sdk();
    const idRec = await approvedRecurrence(efi, {
      politicaRetentativa: 'PERMITE_3R_7D',
      valor: { valorMinimoRecebedor: '1.00' },
    });
    const txid = `SdkRetry${Date.now().toString(36)}`.padEnd(30, '0');
    const due = await businessDayIn(2);
    await efi.pixCreateAutomaticChargeTxid(
      { txid },
      {
        idRec,
        calendario: { dataDeVencimento: due },
        valor: { original: '99.00' },
        ajusteDiaUtil: false,
        recebedor: { conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
      },
    );
    await advanceTo(due);
    const later = sdk();
    await waitFor(
      async () => (await later.pixDetailAutomaticCharge({ txid })).tentativas?.[0]?.status === 'REJEITADA',
      'the first attempt fails',
    );
    const retry = fromEpochDay(toEpochDay(due) + 1);
    const retried = await later.pixRetryRequestAutomaticCharge({ txid, data: retry });
    assert.equal(retried.tentativas?.[1]?.tipo, 'RIFL');
    assert.equal(retried.tentativas?.[1]?.dataLiquidacao, retry);
    await assert.rejects(
      later.pixRetryRequestAutomaticCharge({ txid, data: fromEpochDay(toEpochDay(due) + 9) }),
      (e: any) => {
        assert.match(e.type, /CobROperacaoInvalida$/);
        return true;
      },
    );
  });
  it('journeys 2 and 3: locrec, a recurrence at it, and its composite codes (dadosQR)', async () => {
    const efi = sdk();
    const loc = await efi.pixCreateLocationRecurrenceAutomatic();
    assert.equal((await efi.pixDetailLocationRecurrenceAutomatic({ id: String(loc.id) })).location, loc.location);
    const cob = await efi.pixCreateImmediateCharge(
      {},
      { calendario: { expiracao: 3600 }, valor: { original: '35.85' }, chave: svc.demo.chaves[0] },
    );
    const rec = await efi.pixCreateRecurrenceAutomatic(
      {},
      recBody({ loc: loc.id, ativacao: { dadosJornada: { txid: cob.txid } } }),
    );
    assert.equal((await efi.pixDetailLocationRecurrenceAutomatic({ id: String(loc.id) })).idRec, rec.idRec);
    // The SDK's types leave out `dadosQR` of RecCompleta (the standard has it).
    type WithQr = { dadosQR?: { jornada: string; pixCopiaECola: string } };
    const journey2 = (await efi.pixDetailRecurrenceAutomatic({ idRec: rec.idRec })) as unknown as WithQr;
    assert.equal(journey2.dadosQR?.jornada, 'JORNADA_2');
    assert.ok(journey2.dadosQR?.pixCopiaECola.includes(loc.location));
    const journey3 = (await efi.pixDetailRecurrenceAutomatic({
      idRec: rec.idRec,
      txid: cob.txid,
    })) as unknown as WithQr;
    assert.equal(journey3.dadosQR?.jornada, 'JORNADA_3');
    assert.ok(journey3.dadosQR?.pixCopiaECola.includes(cob.location));
    assert.ok(journey3.dadosQR?.pixCopiaECola.includes(loc.location));
  });
});
