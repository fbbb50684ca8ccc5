/**
 * Participant-side directory (issue 16): participant accounts, key entries of every type with the directory's
 * rules and conflicts, incoming Pix to an entry held WAITING until POST /v1/pix/confirm (ACSP credits, RJCT
 * returns, the clock rejects), transfers from other pixd accounts held the same way, special refund requests
 * closed in the sandbox, and errors in the wrapper format. Real HTTPS with participant applications; every
 * money scenario ends with the ledger's invariants.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { operatorFilePath } from '../../src/operator/secret.ts';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { callerWithFreshToken, setClock, type Call } from '../helpers/time-travel.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { completeCnpj, completeCpf } from '../../src/platform/documents.ts';
import { createAccount, AccountInputError } from '../../src/accounts/service.ts';
import { SANDBOX_PAYER_ISPB } from '../../src/platform/institution.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import { TIPO_REGISTROS } from '../../src/pix/reports/record-types.ts';

let seq = 100_000_000;
const cpf = () => completeCpf(String(seq++));
const cnpj = () => completeCnpj(`${String(seq++).slice(1)}0001`);
let phoneSeq = 5511900000000;
const phone = () => `+${phoneSeq++}`;

interface EntryOptions {
  key: string;
  keyType: string;
  taxId?: string;
  ownerType?: string;
  participant: string;
  accountNumber?: string;
  requestId?: string;
  tradeName?: string;
}

function entryBody(o: EntryOptions) {
  const ownerType = o.ownerType ?? 'natural_person';
  return {
    entry: {
      account: {
        accountNumber: o.accountNumber ?? '1234567',
        accountType: 'cacc',
        branch: '0001',
        openingDate: '2020-01-15T12:00:00.000Z',
        participant: o.participant,
      },
      key: o.key,
      keyType: o.keyType,
      owner: {
        name: 'Fulana de Tal',
        taxIdNumber: o.taxId ?? cpf(),
        type: ownerType,
        ...(o.tradeName && { tradeName: o.tradeName }),
      },
    },
    reason: 'user_requested',
    requestId: o.requestId ?? randomUUID(),
  };
}

/** The wrapper format: {responseTime, correlationId, error {title, status, detail, violations?}}. */
function assertWrapper(res: { status: number; body: any; text: string }, status: number, title: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(typeof res.body.responseTime, 'number', res.text);
  assert.equal(typeof res.body.correlationId, 'string', res.text);
  assert.equal(res.body.error.title, title, res.text);
  assert.equal(res.body.error.status, status, res.text);
}

describe('participant-side directory', () => {
  let svc: TestService;
  let receiver: Receiver;
  let participant: Party;
  let other: Party;
  let payer: Party;
  let ispb: string;
  let otherIspb: string;
  let call: Call;
  let day: string;

  const ispbOf = async (party: Party) =>
    (
      await svc.service.ctx.db.query<{ participant_ispb: string }>(
        'select participant_ispb from accounts where id = $1',
        [party.accountId],
      )
    ).rows[0].participant_ispb;
  const saldo = async (c: Call) => (await c('GET', '/v2/gn/saldo/')).body.saldo as string;
  const register = async (o: EntryOptions, c: Call = call) => c('POST', '/dict/entries', entryBody(o));
  const confirmationStatus = async (e2e: string) =>
    (
      await svc.service.ctx.db.query<{ status: string }>(
        'select status from pix_confirmations where end_to_end_id = $1',
        [e2e],
      )
    ).rows[0]?.status;

  before(async () => {
    svc = await startTestService();
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    participant = await svc.newParty({ nome: 'Banco Indireto SA', participant: true });
    other = await svc.newParty({ nome: 'Outro Indireto SA', participant: true });
    payer = await svc.newParty({ nome: 'Pagadora Ltda' });
    ispb = await ispbOf(participant);
    otherIspb = await ispbOf(other);
    await webhookApi(participant).registerPix(`${receiver.url}/participant`);
    // A sender's key needs a webhook: it is how a send's outcome is told.
    await webhookApi(payer).registerPix(`${receiver.url}/payer`);
    // Every party exists: the clock may move forward (a future day, so its report can be asked the day after).
    day = fromEpochDay(toEpochDay(brasiliaDate(svc.clock.now())) + 10);
    setClock(svc, `${day}T09:00:00-03:00`);
    call = callerWithFreshToken(participant);
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('marks participant accounts with an ISPB and keeps the *.ind.* scopes to them', async () => {
    assert.match(ispb, /^\d{8}$/);
    assert.notEqual(ispb, otherIspb);
    const ctx = svc.service.ctx;
    await assert.rejects(
      createAccount(ctx.db, ctx.pki, svc.clock, { scopes: ['keys.ind.write'] }),
      (error) => error instanceof AccountInputError && /participant/.test(error.message),
    );
    const issued = await createAccount(ctx.db, ctx.pki, svc.clock, { participant: true, ispb: '12345678' });
    assert.equal(issued.account.participant_ispb, '12345678');
    assert.ok(issued.scopes.includes('keys.ind.write') && issued.scopes.includes('pix.ind.write'));
    const plain = await createAccount(ctx.db, ctx.pki, svc.clock, {});
    assert.ok(!plain.scopes.some((s) => s.includes('.ind.')), 'a plain account gets no participant scope');
    await assert.rejects(
      createAccount(ctx.db, ctx.pki, svc.clock, { participant: true, ispb: '12345678' }),
      'an ISPB belongs to one participant',
    );
    // The operator API (what `pixd account create --participant` calls) answers the ISPB.
    const { secret } = JSON.parse(fs.readFileSync(operatorFilePath(svc.config.dataDir), 'utf8'));
    const op = await svc.anonymous.request('POST', '/operator/accounts', {
      body: { participant: true },
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(op.status, 201, op.text);
    assert.match(op.body.account.participant_ispb, /^\d{8}$/);
  });

  it('answers 401 and 403 in the wrapper format', async () => {
    const noToken = await participant.http.request('POST', '/dict/entries', {
      body: entryBody({ key: phone(), keyType: 'phone', participant: ispb }),
    });
    assertWrapper(noToken, 401, 'Unauthorized');
    // The demo application is not a participant's: it holds no *.ind.* scope.
    const demo = callerWithFreshToken(svc.demo);
    assertWrapper(
      await demo('POST', '/dict/entries', entryBody({ key: phone(), keyType: 'phone', participant: ispb })),
      403,
      'AcessoNegado',
    );
    assertWrapper(await demo('POST', '/v1/pix/confirm', { pix: [] }), 403, 'AcessoNegado');
  });

  it('registers entries of every key type and answers them upper-cased, idempotent per requestId', async () => {
    const person = cpf();
    const company = cnpj();
    const cases: EntryOptions[] = [
      { key: phone(), keyType: 'phone', participant: ispb },
      { key: `cliente.${seq++}@example.com`, keyType: 'email', participant: ispb },
      { key: person, keyType: 'cpf', taxId: person, participant: ispb },
      {
        key: company,
        keyType: 'cnpj',
        taxId: company,
        ownerType: 'legal_person',
        tradeName: 'Loja',
        participant: ispb,
      },
      { key: randomUUID(), keyType: 'evp', participant: ispb },
    ];
    for (const c of cases) {
      const body = entryBody(c);
      const res = await call('POST', '/dict/entries', body);
      assert.equal(res.status, 201, res.text);
      assert.equal(typeof res.body.responseTime, 'number');
      assert.equal(typeof res.body.correlationId, 'string');
      const { entry } = res.body;
      assert.equal(entry.key, c.key);
      assert.equal(entry.keyType, c.keyType.toUpperCase());
      assert.equal(entry.account.accountType, 'CACC');
      assert.equal(entry.account.participant, ispb);
      assert.equal(entry.owner.type, (c.ownerType ?? 'natural_person').toUpperCase());
      assert.ok(Date.parse(entry.creationDate) && Date.parse(entry.keyOwnershipDate));
      // The same request again: the same entry, not a conflict.
      const again = await call('POST', '/dict/entries', body);
      assert.equal(again.status, 201, again.text);
      assert.deepEqual(again.body.entry, entry);
    }
    // A customer's random key is the directory's, not the participant account's own: /v2/gn/evp leaves it alone.
    const evpKey = cases[4].key;
    const listed = await call('GET', '/v2/gn/evp');
    assert.equal(listed.status, 200, listed.text);
    assert.ok(!listed.body.chaves.includes(evpKey), listed.text);
    assert.equal((await call('DELETE', `/v2/gn/evp/${evpKey}`)).status, 404);
    // The same requestId with another body: refused.
    const requestId = randomUUID();
    assert.equal((await register({ key: phone(), keyType: 'phone', participant: ispb, requestId })).status, 201);
    const reused = await register({ key: phone(), keyType: 'phone', participant: ispb, requestId });
    assertWrapper(reused, 400, 'EntryInvalid');
    assert.equal(reused.body.error.violations[0].property, 'requestId');
  });

  it('refuses invalid entries with EntryInvalid and its violations, never 5xx', async () => {
    const owner = cpf();
    const wrongDigits = `${owner.slice(0, 9)}${(Number(owner.slice(9)) + 1) % 100}`.padEnd(11, '0');
    const cases: [string, Record<string, unknown>, string][] = [
      ['phone +0', entryBody({ key: '+0551199999999', keyType: 'phone', participant: ispb }), 'entry.key'],
      ['phone no plus', entryBody({ key: '5511999999999', keyType: 'phone', participant: ispb }), 'entry.key'],
      ['phone 16 digits', entryBody({ key: '+1234567890123456', keyType: 'phone', participant: ispb }), 'entry.key'],
      [
        'cpf check digits',
        entryBody({ key: wrongDigits, keyType: 'cpf', taxId: wrongDigits, participant: ispb }),
        'entry.key',
      ],
      ['cpf of another', entryBody({ key: cpf(), keyType: 'cpf', taxId: owner, participant: ispb }), 'entry.key'],
      [
        'cnpj check digits',
        entryBody({
          key: '11222333000180',
          keyType: 'cnpj',
          taxId: '11222333000180',
          ownerType: 'legal_person',
          participant: ispb,
        }),
        'entry.key',
      ],
      ['email upper', entryBody({ key: 'Fulano@Example.com', keyType: 'email', participant: ispb }), 'entry.key'],
      ['evp upper', entryBody({ key: randomUUID().toUpperCase(), keyType: 'evp', participant: ispb }), 'entry.key'],
      [
        'owner CPF invalid',
        entryBody({ key: phone(), keyType: 'phone', taxId: '12345678900', participant: ispb }),
        'entry.owner.taxIdNumber',
      ],
      [
        'another ISPB',
        entryBody({ key: phone(), keyType: 'phone', participant: otherIspb }),
        'entry.account.participant',
      ],
      ['branch', { ...entryBody({ key: phone(), keyType: 'phone', participant: ispb }), reason: 'user_requested' }, ''],
      ['unknown key type', entryBody({ key: phone(), keyType: 'iban', participant: ispb }), 'entry.keyType'],
      ['unknown property', { ...entryBody({ key: phone(), keyType: 'phone', participant: ispb }), extra: 1 }, 'extra'],
      [
        'requestId not a UUID',
        { ...entryBody({ key: phone(), keyType: 'phone', participant: ispb }), requestId: 'x' },
        'requestId',
      ],
    ];
    (cases[10][1] as any).entry.account.branch = '1';
    cases[10][2] = 'entry.account.branch';
    for (const [what, body, property] of cases) {
      const res = await call('POST', '/dict/entries', body);
      assertWrapper(res, 400, 'EntryInvalid');
      const properties = (res.body.error.violations ?? []).map((v: { property: string }) => v.property);
      assert.ok(properties.includes(property), `${what}: ${res.text}`);
    }
    const malformed = await participant.http.request('POST', '/dict/entries', {
      token: await participant.token(),
      body: '{"entry":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400, malformed.text);
  });

  it('answers a key held by anyone in pixd as a conflict of the right kind', async () => {
    const owner = cpf();
    const key = phone();
    assert.equal((await register({ key, keyType: 'phone', taxId: owner, participant: ispb })).status, 201);
    assertWrapper(await register({ key, keyType: 'phone', participant: ispb }), 400, 'EntryKeyOwnedByDifferentPerson');
    const otherCall = callerWithFreshToken(other);
    assertWrapper(
      await register({ key, keyType: 'phone', taxId: owner, participant: otherIspb }, otherCall),
      400,
      'EntryKeyInCustodyOfDifferentParticipant',
    );
    assertWrapper(
      await register({ key, keyType: 'phone', taxId: owner, participant: ispb }),
      400,
      'EntryAlreadyExists',
    );
    // A platform account's key (the payer's random key) belongs to its holder.
    assertWrapper(
      await register({ key: payer.chaves[0], keyType: 'evp', participant: ispb }),
      400,
      'EntryKeyOwnedByDifferentPerson',
    );
  });

  it('limits an owner to 5 keys per account as a natural person (20 as a legal one)', async () => {
    const owner = cpf();
    for (let i = 0; i < LIMITS.pixKeysMaxPerAccountNaturalPerson; i++)
      assert.equal(
        (await register({ key: phone(), keyType: 'phone', taxId: owner, participant: ispb, accountNumber: '777' }))
          .status,
        201,
      );
    assertWrapper(
      await register({ key: phone(), keyType: 'phone', taxId: owner, participant: ispb, accountNumber: '777' }),
      400,
      'EntryLimitExceeded',
    );
    // Another account of the same owner has its own count.
    assert.equal(
      (await register({ key: phone(), keyType: 'phone', taxId: owner, participant: ispb, accountNumber: '778' }))
        .status,
      201,
    );
  });

  it('holds a Pix to an entry WAITING: ACSP credits it, RJCT returns it, the clock rejects the unconfirmed', async () => {
    const key = phone();
    assert.equal((await register({ key, keyType: 'phone', participant: ispb })).status, 201);
    const payerCall = callerWithFreshToken(payer);
    const pay = async (valor: string) => {
      const res = await payerCall('POST', '/sandbox/pix/pay', { chave: key, valor });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'WAITING');
      assert.equal(res.body.chave, key);
      return res.body.endToEndId as string;
    };
    const hooked = await call('PUT', `/v2/webhook/${encodeURIComponent(key)}`, { webhookUrl: `${receiver.url}/entry` });
    assert.equal(hooked.status, 201, hooked.text);
    const before = await saldo(call);

    // A charge of the participant's account to the entry key, paid by the sandbox payer: held like any Pix to it.
    const cob = await call('POST', '/v2/cob', {
      calendario: { expiracao: 3600 },
      valor: { original: '25.00' },
      chave: key,
    });
    assert.equal(cob.status, 201, cob.text);
    const paid = await payerCall('POST', '/sandbox/pix/pay', {
      pixCopiaECola: cob.body.pixCopiaECola,
    });
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.status, 'WAITING');
    const accepted = paid.body.endToEndId as string;
    assert.equal(await saldo(call), before, 'nothing credited while WAITING');
    assert.equal((await call('GET', `/v2/pix/${accepted}`)).status, 404, 'not a received Pix yet');
    assert.equal((await call('GET', `/v2/cob/${cob.body.txid}`)).body.status, 'ATIVA');
    const ok = await call('POST', '/v1/pix/confirm', { pix: [{ endToEndId: accepted, status: 'ACSP' }] });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status, 'PROCESSED');
    assert.deepEqual(
      ok.body.pix.map((p: any) => [p.endToEndId, p.result]),
      [[accepted, 'PROCESSED']],
    );
    assert.equal(await saldo(call), (Number(before) + 25).toFixed(2));
    const received = await call('GET', `/v2/pix/${accepted}`);
    assert.equal(received.status, 200, received.text);
    assert.equal(received.body.valor, '25.00');
    assert.equal(received.body.txid, cob.body.txid);
    assert.equal((await call('GET', `/v2/cob/${cob.body.txid}`)).body.status, 'CONCLUIDA');
    // The entry key's webhook is told of the accepted Pix, and only of it.
    const calls = await receiver.waitForCalls(1, '/entry/pix');
    assert.deepEqual(
      calls.map((c) => (c.body as any).pix[0].endToEndId),
      [accepted],
    );

    const rejected = await pay('7.00');
    const longReason = 'x'.repeat(LIMITS.pixConfirmErrorReasonMaxChars + 1);
    assertWrapper(
      await call('POST', '/v1/pix/confirm', { pix: [{ endToEndId: rejected, status: 'RJCT' }] }),
      400,
      'Validation Error',
    );
    assertWrapper(
      await call('POST', '/v1/pix/confirm', {
        pix: [{ endToEndId: rejected, status: 'RJCT', error: { code: 'AC03', reason: longReason } }],
      }),
      400,
      'Validation Error',
    );
    assert.equal(await confirmationStatus(rejected), 'WAITING', 'a refused call decides nothing');
    const no = await call('POST', '/v1/pix/confirm', {
      pix: [
        { endToEndId: rejected, status: 'RJCT', error: { code: 'AC03', reason: 'x'.repeat(105) } },
        { endToEndId: accepted, status: 'ACSP' },
        { endToEndId: 'E99999009202601011200ABCDEFGHIJK', status: 'ACSP' },
      ],
    });
    assert.equal(no.status, 200, no.text);
    assert.deepEqual(
      no.body.pix.map((p: any) => p.result),
      ['PROCESSED', 'ALREADY_DECIDED', 'NOT_FOUND'],
    );
    assert.equal(await confirmationStatus(rejected), 'RJCT');
    assert.equal((await call('GET', `/v2/pix/${rejected}`)).status, 404, 'a rejected Pix is never received');

    const unconfirmed = await pay('3.00');
    await outboxIdle(svc);
    assert.equal(await confirmationStatus(unconfirmed), 'WAITING');
    svc.advance(LIMITS.participantConfirmationTimeoutSeconds + 1);
    await waitFor(async () => (await confirmationStatus(unconfirmed)) === 'EXPIRED', 'the timeout');
    const late = await call('POST', '/v1/pix/confirm', { pix: [{ endToEndId: unconfirmed, status: 'ACSP' }] });
    assert.equal(late.body.pix[0].result, 'ALREADY_DECIDED');
    assert.equal(late.body.pix[0].status, 'EXPIRED');
    assert.equal(await saldo(call), (Number(before) + 25).toFixed(2), 'only the accepted Pix was credited');
    await outboxIdle(svc);
    assert.equal(receiver.callsTo('/entry/pix').length, 1, 'no webhook for rejected or expired Pix');

    const db = svc.service.ctx.db;
    const credits = await db.query<{ n: number }>(
      `select count(*)::int as n from journal_entries where reference = $1`,
      [accepted],
    );
    assert.equal(credits.rows[0].n, 1, 'credited exactly once');
    await assertBalanceMatchesLines(db, participant.accountId, await saldo(call));
    await assertLedgerBalanced(db);
  });

  it('holds a transfer from another pixd account: ACSP settles the send, RJCT returns it to its sender', async () => {
    const key = phone();
    assert.equal((await register({ key, keyType: 'phone', participant: ispb })).status, 201);
    const payerCall = callerWithFreshToken(payer);
    assert.equal((await payerCall('POST', '/sandbox/pix/pay', { chave: payer.chaves[0], valor: '50.00' })).status, 201);
    const payerBefore = Number(await saldo(payerCall));
    const participantBefore = Number(await saldo(call));
    const send = async (idEnvio: string, valor: string) => {
      const res = await payerCall('PUT', `/v2/gn/pix/${idEnvio}`, {
        valor,
        pagador: { chave: payer.chaves[0] },
        favorecido: { chave: key },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.e2eId as string;
    };
    const sentStatus = async (idEnvio: string) =>
      (await payerCall('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).body.status as string;

    const e2eOk = await send(`dictok${seq++}`, '20.00');
    const e2eNo = await send(`dictno${seq++}`, '5.00');
    const lateId = `dictlate${seq++}`;
    const e2eLate = await send(lateId, '4.00');
    await waitFor(
      async () =>
        (await confirmationStatus(e2eOk)) && (await confirmationStatus(e2eNo)) && (await confirmationStatus(e2eLate)),
      'all three held',
    );
    await outboxIdle(svc);
    assert.equal(Number(await saldo(payerCall)), payerBefore - 29, "the sender's money is held");
    assert.equal(Number(await saldo(call)), participantBefore, 'nothing credited yet');

    const res = await call('POST', '/v1/pix/confirm', {
      pix: [
        { endToEndId: e2eOk, status: 'ACSP' },
        { endToEndId: e2eNo, status: 'RJCT', error: { code: 'AC03', reason: 'Conta do cliente encerrada.' } },
      ],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'WAITING', 'the sends settle after the answer');
    await waitFor(async () => {
      const [a, b] = [await sentStatus(`dictok${seq - 3}`), await sentStatus(`dictno${seq - 2}`)];
      return a !== 'EM_PROCESSAMENTO' && b !== 'EM_PROCESSAMENTO' && [a, b];
    }, 'both sends settled').then((statuses) => assert.deepEqual(statuses, ['REALIZADO', 'NAO_REALIZADO']));
    assert.equal(Number(await saldo(payerCall)), payerBefore - 24, 'the rejected amount went back to its sender');
    assert.equal(Number(await saldo(call)), participantBefore + 20);
    // The third, never confirmed: its deadline passes and the send is returned.
    assert.equal(await sentStatus(lateId), 'EM_PROCESSAMENTO');
    svc.advance(LIMITS.participantConfirmationTimeoutSeconds + 1);
    await waitFor(async () => (await sentStatus(lateId)) === 'NAO_REALIZADO', 'the unconfirmed send returned');
    assert.equal(await confirmationStatus(e2eLate), 'EXPIRED');
    assert.equal(Number(await saldo(payerCall)), payerBefore - 20, 'the expired amount went back too');
    assert.equal(Number(await saldo(call)), participantBefore + 20);
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, payer.accountId, await saldo(payerCall));
    await assertBalanceMatchesLines(db, participant.accountId, await saldo(call));
    await assertLedgerBalanced(db);
  });

  it('opens special refund requests and moves the money when the sandbox closes them accepted', async () => {
    const key = phone();
    assert.equal((await register({ key, keyType: 'phone', participant: ispb })).status, 201);
    const payerCall = callerWithFreshToken(payer);
    const paid = await payerCall('POST', '/sandbox/pix/pay', { chave: key, valor: '30.00' });
    const e2e = paid.body.endToEndId as string;
    assert.equal(
      (await call('POST', '/v1/pix/confirm', { pix: [{ endToEndId: e2e, status: 'ACSP' }] })).body.status,
      'PROCESSED',
    );
    const before = Number(await saldo(call));
    const ask = (refundAmount: number, transactionId = e2e, refundReason = 'fraud') =>
      call('POST', '/dict/refunds', {
        refund: { refundAmount, refundDetails: 'Golpe relatado pelo cliente.', refundReason, transactionId },
      });

    const opened = await ask(12.5);
    assert.equal(opened.status, 201, opened.text);
    const { refund } = opened.body;
    assert.equal(refund.status, 'open');
    assert.equal(refund.requestingParticipant, ispb);
    assert.equal(refund.contestedParticipant, SANDBOX_PAYER_ISPB);
    assert.equal(refund.refundAmount, 12.5);
    assert.equal(refund.transactionId, e2e);
    const read = await call('GET', `/dict/refunds/${refund.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.refund, refund);

    assertWrapper(await ask(17.51), 400, 'RefundInvalid');
    assertWrapper(await ask(1.005), 400, 'RefundInvalid');
    assertWrapper(await ask(1, e2e, 'whim'), 400, 'RefundInvalid');
    assertWrapper(await ask(1, 'E99999009202601011200ABCDEFGHIJK'), 404, 'NotFound');
    assertWrapper(await call('GET', `/dict/refunds/${randomUUID()}`), 404, 'NotFound');
    assertWrapper(await call('GET', '/dict/refunds/not-a-uuid'), 400, 'RefundInvalid');

    const closed = await call('POST', `/sandbox/dict/refunds/${refund.id}/close`, { result: 'totally_accepted' });
    assert.equal(closed.status, 200, closed.text);
    assert.equal(closed.body.status, 'closed');
    assert.equal(closed.body.refundedAmount, 12.5);
    const again = await call('POST', `/sandbox/dict/refunds/${refund.id}/close`, { result: 'rejected' });
    assert.equal(again.status, 400, again.text);
    await waitFor(async () => Number(await saldo(call)) === before - 12.5, 'the refund settled');

    // A Pix the participant's customer paid to another pixd account: partially accepted, comes back.
    const sent = await call('PUT', `/v2/gn/pix/dictref${seq++}`, {
      valor: '8.00',
      pagador: { chave: participant.chaves[0] },
      favorecido: { chave: payer.chaves[0] },
    });
    assert.equal(sent.status, 201, sent.text);
    await waitFor(
      async () => (await call('GET', `/v2/gn/pix/enviados/${sent.body.e2eId}`)).body.status === 'REALIZADO',
      'the send settled',
    );
    const afterSend = Number(await saldo(call));
    const onSent = await ask(8, sent.body.e2eId, 'operational_flaw');
    assert.equal(onSent.status, 201, onSent.text);
    const partial = await call('POST', `/sandbox/dict/refunds/${onSent.body.refund.id}/close`, {
      result: 'partially_accepted',
      amount: 3,
    });
    assert.equal(partial.status, 200, partial.text);
    assert.equal(partial.body.refundAnalysisResult, 'partially_accepted');
    await waitFor(async () => Number(await saldo(call)) === afterSend + 3, 'the partial refund came back');

    const db = svc.service.ctx.db;
    await outboxIdle(svc);
    await assertBalanceMatchesLines(db, participant.accountId, await saldo(call));
    await assertBalanceMatchesLines(db, payer.accountId, await saldo(payerCall));
    await assertLedgerBalanced(db);
  });

  it('credits a charge once: of two Pix held for it, the second accepted is REFUSED and nothing is credited twice', async () => {
    const key = phone();
    assert.equal((await register({ key, keyType: 'phone', participant: ispb })).status, 201);
    const cob = await call('POST', '/v2/cob', {
      calendario: { expiracao: 3600 },
      valor: { original: '30.00' },
      chave: key,
    });
    assert.equal(cob.status, 201, cob.text);
    const payerCall = callerWithFreshToken(payer);
    const pay = async () => {
      const res = await payerCall('POST', '/sandbox/pix/pay', { pixCopiaECola: cob.body.pixCopiaECola });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'WAITING');
      return res.body.endToEndId as string;
    };
    const [first, second] = [await pay(), await pay()];
    const before = Number(await saldo(call));
    const res = await call('POST', '/v1/pix/confirm', {
      pix: [
        { endToEndId: first, status: 'ACSP' },
        { endToEndId: second, status: 'ACSP' },
      ],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.pix.map((p: any) => p.result),
      ['PROCESSED', 'REFUSED'],
    );
    assert.equal(await confirmationStatus(second), 'RJCT');
    assert.equal(Number(await saldo(call)), before + 30);
    assert.equal((await call('GET', `/v2/pix/${second}`)).status, 404);
    const db = svc.service.ctx.db;
    await assertBalanceMatchesLines(db, participant.accountId, await saldo(call));
    await assertLedgerBalanced(db);
  });

  it("shows the accepted Pix in the participant's report of the day", async () => {
    const next = fromEpochDay(toEpochDay(day) + 1);
    setClock(svc, `${next}T10:00:00-03:00`);
    const c = callerWithFreshToken(participant);
    const posted = await c('POST', '/v2/gn/relatorios/extrato-conciliacao', {
      dataMovimento: day,
      tipoRegistros: Object.fromEntries(TIPO_REGISTROS.map((t) => [t, true])),
    });
    assert.equal(posted.status, 201, posted.text);
    const file = await waitFor(async () => {
      const res = await c('GET', `/v2/gn/relatorios/${posted.body.id}`);
      return res.status === 200 && res;
    }, 'report file');
    const lines = file.text
      .trim()
      .split('\n')
      .map((l: string) => l.split(';'));
    const received = lines.filter((l: string[]) => l[1] === 'pixRecebido').map((l: string[]) => l[4]);
    assert.ok(received.includes('25.00'), `the accepted 25.00 is reported: ${file.text}`);
    assert.ok(!received.includes('7.00') && !received.includes('3.00'), 'rejected and expired Pix are not');
    const closing = lines.find((l: string[]) => l[1] === 'saldoDia')!;
    assert.equal(closing[4], await saldo(c), 'the closing balance is the balance');
  });

  it('answers a failure of its own (500) in the wrapper format, without the entry it carried', async () => {
    const failing = cpf();
    // A realistic storage refusal: the database rejects this owner's row.
    await svc.service.ctx.db.query(
      `alter table dict_entries add constraint test_refuses_owner check (owner_tax_id <> '${failing}')`,
    );
    try {
      const res = await call(
        'POST',
        '/dict/entries',
        entryBody({ key: phone(), keyType: 'phone', participant: ispb, taxId: failing }),
      );
      assert.equal(res.status, 500, res.text);
      assert.equal(typeof res.body.correlationId, 'string', res.text);
      assert.equal(res.body.error.status, 500, res.text);
      assert.ok(!res.text.includes(failing), 'the answer quotes the owner document');
    } finally {
      await svc.service.ctx.db.query('alter table dict_entries drop constraint test_refuses_owner');
    }
  });
});

describe('participant-side directory past its deadline', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ PIXD_DICT_TIMEOUT_MS: '0' });
  });
  after(async () => svc?.close());

  const participantIspb = async (party: Party) =>
    (
      await svc.service.ctx.db.query<{ participant_ispb: string }>(
        'select participant_ispb from accounts where id = $1',
        [party.accountId],
      )
    ).rows[0].participant_ispb;

  it('answers 504 in the wrapper format when the directory operation does not finish in time', async () => {
    const participant = await svc.newParty({ participant: true });
    const c = callerWithFreshToken(participant);
    const res = await c(
      'POST',
      '/dict/entries',
      entryBody({ key: phone(), keyType: 'phone', participant: await participantIspb(participant) }),
    );
    assertWrapper(res, 504, 'Timeout');
  });
});
