/**
 * The automatic-payment API over HTTPS (no browser: the consent form is posted as a browser posts it):
 * configuration, participants, enrolment rules and their named errors, keyset paging, revocation, payment
 * rules, cancellation, the sandbox refusal above 10.00, HMAC-signed callbacks, scopes and the SDK's paths.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HMAC_HEADER, signBody } from '../../src/openfinance/events.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { Receiver } from '../helpers/receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { callerWithFreshToken, type Call } from '../helpers/time-travel.ts';
import { waitFor } from '../helpers/wait.ts';
import { PAYER_CPF, dateIn, demoAccount, enrolmentBody } from './helpers.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { sdkFor } from '../helpers/sdk.ts';

const ENROL = '/v1/pagamentos-automaticos/adesao';
const PAY = '/v1/pagamentos-automaticos/pix';

describe('automatic payments API', () => {
  let svc: TestService;
  let call: Call;
  let receiver: Receiver;
  let account: { conta: string; documento: string; nome: string };
  let participante: string;

  before(async () => {
    svc = await startTestService();
    call = callerWithFreshToken(svc.demo);
    receiver = await Receiver.start();
    account = await demoAccount(svc);
    participante = (await call('GET', '/v1/participantes')).body.participantes[0].identificador;
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  const body = (automatico = {}) => enrolmentBody(svc, account, participante, automatico);
  const configure = (extra = {}) =>
    call('PUT', '/v1/config', {
      redirectURL: 'https://app.example/retorno',
      webhookURL: `${receiver.url}/of`,
      ...extra,
    });

  /** Enrols and answers the consent form as the payer's browser would; returns the enrolment id. */
  async function enrolled(decisao: 'autorizar' | 'recusar' = 'autorizar', automatico = {}): Promise<string> {
    const created = await call('POST', ENROL, body(automatico));
    assert.equal(created.status, 200, created.text);
    const path = new URL(created.body.redirectURI).pathname;
    const form = new URLSearchParams({ login: PAYER_CPF, senha: '123456', decisao }).toString();
    const answer = await svc.anonymous.request('POST', path, {
      rawBody: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(answer.status, 303, answer.text);
    const back = await svc.anonymous.request('GET', String(answer.headers.location));
    assert.equal(back.status, 303);
    const target = new URL(String(back.headers.location));
    assert.equal(target.origin + target.pathname, 'https://app.example/retorno');
    assert.equal(target.searchParams.get('status'), decisao === 'autorizar' ? 'autorizado' : 'rejeitado');
    return created.body.identificadorAdesao;
  }

  it('refuses enrolment with a named error while no redirect address is configured', async () => {
    const res = await call('POST', ENROL, body());
    assert.equal(res.status, 422);
    assert.equal(res.body.nome, 'configuracao_ausente');
    assert.match(res.body.mensagem, /redirectURL/);
    assert.equal((await call('GET', '/v1/config')).status, 404);
  });

  it('PUT/GET /v1/config: mTLS by default, HMAC with its key; bad addresses are named 400s', async () => {
    const saved = await configure();
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.webhookSecurity, { type: 'mtls' });
    assert.equal((await call('GET', '/v1/config')).body.redirectURL, 'https://app.example/retorno');
    const noHash = await configure({ webhookSecurity: { type: 'hmac' } });
    assert.equal(noHash.status, 400);
    assert.equal(noHash.body.nome, 'configuracao_invalida');
    assert.match(noHash.body.mensagem, /webhookSecurity\.hash/);
    const http = await configure({ webhookURL: 'http://insecure.example/of' });
    assert.equal(http.status, 400);
    assert.match(http.body.mensagem, /webhookURL/);
    const extra = await configure({ outro: 1 });
    assert.equal(extra.status, 400);
    assert.match(extra.body.mensagem, /outro/);
  });

  it('participants: the sandbox institutions, with and without the trailing slash, filtered by name', async () => {
    const plain = await call('GET', '/v1/participantes');
    const slash = await call('GET', '/v1/participantes/');
    assert.equal(plain.status, 200);
    assert.deepEqual(slash.body, plain.body);
    const p = plain.body.participantes[0];
    assert.ok(p.identificador && p.nome && p.logo.startsWith('data:image/svg+xml') && p.organizacoes[0].cnpj);
    const filtered = await call('GET', '/v1/participantes?nome=maré');
    assert.deepEqual(
      filtered.body.participantes.map((x: { nome: string }) => x.nome),
      ['Banco Maré'],
    );
  });

  it('enrolment rules: each refusal a {nome, mensagem} naming the field, never a 5xx', async () => {
    await configure();
    const cases: [string, (b: ReturnType<typeof body>) => void, RegExp][] = [
      ['bad CPF check digit', (b) => (b.pagador.cpf = '12345678900'), /pagador\.cpf/],
      ['unknown participant', (b) => (b.pagador.idParticipante = 'x'), /idParticipante/],
      ['another account receives', (b) => (b.favorecido.contaBanco.conta = '1'), /favorecido\.contaBanco\.conta/],
      ['expiry before start', (b) => (b.assinatura.expiracao = dateIn(svc, -1)), /dataInicio|expiracao/],
      ['fixed and range together', (b) => (b.assinatura.configuracao.automatico.valorFixo = '10.00'), /valorFixo/],
      [
        'min above max',
        (b) => Object.assign(b.assinatura.configuracao.automatico, { valorMinimo: '60.00' }),
        /valorMinimo/,
      ],
      ['three decimals', (b) => (b.assinatura.configuracao.automatico.valorMaximo = '1.000'), /valorMaximo/],
      [
        'unknown interval',
        (b) => ((b.assinatura.configuracao.automatico as { intervalo: string }).intervalo = 'DIARIO'),
        /intervalo/,
      ],
      ['missing favorecido', (b) => delete (b as Partial<typeof b>).favorecido, /favorecido/],
    ];
    for (const [what, change, field] of cases) {
      const b = body();
      change(b);
      const res = await call('POST', ENROL, b);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.body.nome, 'adesao_invalida', what);
      assert.match(res.body.mensagem, field, what);
    }
    const malformed = await svc.demo.http.request('POST', ENROL, {
      token: await svc.demo.token(),
      rawBody: '{"pagador":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.ok(malformed.body.nome && malformed.body.mensagem);
  });

  it('payments keep to the enrolment: amount range, dates, one per period; revoked accepts none', async () => {
    const id = await enrolled();
    const pay = (valor: string, data: string) =>
      call('POST', PAY, { identificadorAdesao: id, pagamento: { valor, data } });
    const tooMuch = await pay('51.00', dateIn(svc, 1));
    assert.equal(tooMuch.status, 400);
    assert.match(tooMuch.body.mensagem, /pagamento\.valor.*máximo/);
    const past = await pay('5.00', dateIn(svc, -1));
    assert.equal(past.status, 400);
    assert.match(past.body.mensagem, /pagamento\.data/);
    const first = await pay('5.00', dateIn(svc, 1));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, 'pendente');
    const samePeriod = await pay('6.00', dateIn(svc, 2));
    assert.equal(samePeriod.status, 422);
    assert.equal(samePeriod.body.nome, 'pagamento_periodo_ocupado');

    const cancelled = await call('PATCH', PAY, { identificadorAdesao: id, endToEndId: first.body.endToEndId });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelado');
    assert.ok(cancelled.body.motivo);
    assert.equal(cancelled.body.valor, '5.00');
    const again = await call('PATCH', PAY, { identificadorAdesao: id, endToEndId: first.body.endToEndId });
    assert.equal(again.status, 422);
    assert.equal(again.body.nome, 'pagamento_nao_cancelavel');
    // The period is free again once its payment is cancelled.
    assert.equal((await pay('6.00', dateIn(svc, 2))).status, 200);

    const other = await call('PATCH', ENROL, { identificador: id, status: 'autorizado' });
    assert.equal(other.status, 400);
    assert.match(other.body.mensagem, /status/);
    // The interface's body {identificador, nomeFavorecido, status, dataExpiracao, valorMaximo}: the other fields
    // at their current values are accepted, a different value of any of them is refused, naming it.
    const today = dateIn(svc, 0);
    const listed = await call(
      'GET',
      `${ENROL}?inicio=${today}&fim=${today}&identificadorAdesao=${encodeURIComponent(id)}`,
    );
    const current = listed.body.adesoes[0];
    const documented = {
      identificador: id,
      nomeFavorecido: current.favorecido.contaBanco.nome,
      status: 'revogado',
      dataExpiracao: current.assinatura.expiracao,
      valorMaximo: current.assinatura.configuracao.automatico.valorMaximo,
    };
    for (const [field, value] of [
      ['valorMaximo', '99.00'],
      ['nomeFavorecido', 'Outro Nome Ltda'],
      ['dataExpiracao', dateIn(svc, 30)],
    ]) {
      const change = await call('PATCH', ENROL, { ...documented, [field]: value });
      assert.equal(change.status, 400, field);
      assert.equal(change.body.nome, 'adesao_invalida');
      assert.match(change.body.mensagem, new RegExp(`^${field}: não pode ser alterado`));
    }
    assert.equal((await call('GET', `${PAY}?identificadorAdesao=${encodeURIComponent(id)}`)).body.status, 'autorizado');
    const done = await call('PATCH', ENROL, { ...documented, motivo: 'cliente saiu' });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, 'revogado');
    assert.equal(done.body.motivo, 'cliente saiu');
    assert.deepEqual(done.body.assinatura, current.assinatura, 'only the status changed');
    assert.deepEqual(done.body.favorecido, current.favorecido);
    const refused = await pay('5.00', dateIn(svc, 40));
    assert.equal(refused.status, 422);
    assert.equal(refused.body.nome, 'adesao_nao_autorizada');
    const unknown = await call('GET', `${PAY}?identificadorAdesao=urn:pixd:nada`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.nome, 'adesao_nao_encontrada');
  });

  it('x-idempotency-key: a repeated creation answers the first one and creates nothing', async () => {
    await configure();
    const token = await svc.demo.token();
    const post = (path: string, payload: unknown, key: string) =>
      svc.demo.http.request('POST', path, { token, body: payload, headers: { 'x-idempotency-key': key } });
    const key = `enrol-${Date.now()}`;
    const first = await post(ENROL, body(), key);
    const again = await post(ENROL, body(), key);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(again.body, first.body);
    const other = await post(ENROL, body(), `${key}-b`);
    assert.notEqual(other.body.identificadorAdesao, first.body.identificadorAdesao);

    const id = await enrolled();
    const payment = { identificadorAdesao: id, pagamento: { valor: '5.00', data: dateIn(svc, 1) } };
    const paid = await post(PAY, payment, `${key}-pay`);
    const replay = await post(PAY, payment, `${key}-pay`);
    assert.equal(paid.status, 200, paid.text);
    assert.deepEqual(replay.body, paid.body, 'the same payment, not a period conflict');
    const listed = await call('GET', `${PAY}?identificadorAdesao=${encodeURIComponent(id)}`);
    assert.equal(listed.body.pagamentos.length, 1);
  });

  it("GET …/pix looks up by payment, status or period alone, across the account's enrolments only", async () => {
    await configure();
    const first = await enrolled();
    const second = await enrolled();
    const pay = async (id: string, valor: string, days: number) => {
      const res = await call('POST', PAY, { identificadorAdesao: id, pagamento: { valor, data: dateIn(svc, days) } });
      assert.equal(res.status, 200, res.text);
      return res.body.endToEndId as string;
    };
    const a = await pay(first, '3.00', 3);
    const b = await pay(second, '4.00', 4);
    const byPayment = await call('GET', `${PAY}?endToEndId=${b}`);
    assert.equal(byPayment.status, 200, byPayment.text);
    assert.equal(byPayment.body.identificadorAdesao, second, "the payment's enrolment");
    assert.equal(byPayment.body.status, 'autorizado');
    assert.deepEqual(
      byPayment.body.pagamentos.map((p: { endToEndId: string }) => p.endToEndId),
      [b],
    );
    const pending = await call('GET', `${PAY}?status=pendente`);
    assert.equal(pending.status, 200, pending.text);
    assert.equal(pending.body.identificadorAdesao, undefined, 'no one enrolment is named');
    const listed = new Map(
      pending.body.pagamentos.map((p: { endToEndId: string; identificadorAdesao: string }) => [
        p.endToEndId,
        p.identificadorAdesao,
      ]),
    );
    assert.equal(listed.get(a), first);
    assert.equal(listed.get(b), second);
    const day = dateIn(svc, 4);
    const inPeriod = await call('GET', `${PAY}?inicio=${day}&fim=${day}`);
    assert.equal(inPeriod.status, 200, inPeriod.text);
    assert.ok(inPeriod.body.pagamentos.some((p: { endToEndId: string }) => p.endToEndId === b));
    assert.ok(inPeriod.body.pagamentos.every((p: { data: string }) => p.data === day));
    const fromDay = await call('GET', `${PAY}?inicio=${day}`);
    assert.ok(fromDay.body.pagamentos.every((p: { data: string }) => p.data >= day));
    const none = await call('GET', PAY);
    assert.equal(none.status, 400);
    assert.equal(none.body.nome, 'parametro_invalido');
    const backwards = await call('GET', `${PAY}?inicio=${day}&fim=${dateIn(svc, 1)}`);
    assert.equal(backwards.status, 400);
    // Another account sees none of them.
    const other = callerWithFreshToken(
      await svc.newParty({ scopes: ['gn.opb.automatic.payment.read', 'gn.opb.automatic.consent.read'] }),
    );
    const foreign = await other('GET', `${PAY}?endToEndId=${b}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.nome, 'pagamento_nao_encontrado');
    assert.deepEqual((await other('GET', `${PAY}?status=pendente`)).body.pagamentos, []);
  });

  it('a payment dated today settles at once; above 10.00 the sandbox payer refuses it with a reason', async () => {
    const id = await enrolled('autorizar', { intervalo: 'SEMANAL' });
    const big = await call('POST', PAY, {
      identificadorAdesao: id,
      pagamento: { valor: '20.00', data: dateIn(svc, 0) },
    });
    assert.equal(big.status, 200, big.text);
    const read = await waitFor(async () => {
      const r = await call('GET', `${PAY}?identificadorAdesao=${encodeURIComponent(id)}&status=rejeitado`);
      return r.body.pagamentos.length === 1 && r.body;
    }, 'rejeitado');
    assert.match(read.pagamentos[0].motivo, /10\.00/);
    const settled = await call('GET', `/v2/pix/${big.body.endToEndId}`);
    assert.equal(settled.status, 404, 'nothing was credited');
    // The payer's institution pays through the SPI boundary: its pacs.008 is claimed by the payment's end-to-end id.
    const claimed = async (endToEndId: string) =>
      (
        await svc.service.ctx.db.query<{ answer: string }>(
          `select answer from spi_inbound where kind = 'pacs.008' and ref_id = $1`,
          [endToEndId],
        )
      ).rows.map((r) => /<TxSts>(\w+)<\/TxSts>/.exec(r.answer)?.[1]);
    assert.deepEqual(await claimed(big.body.endToEndId), [], 'refused above 10.00 before sending anything');
    // Next week's payment of 5.00 is paid; a refund of it shows in the payment's `devolucoes`.
    const small = await call('POST', PAY, {
      identificadorAdesao: id,
      pagamento: { valor: '5.00', data: dateIn(svc, 7) },
    });
    assert.equal(small.status, 200, small.text);
    await call('POST', '/sandbox/clock/advance', { segundos: 8 * 86_400 });
    const e2e = small.body.endToEndId;
    await waitFor(async () => (await call('GET', `/v2/pix/${e2e}`)).body.valor === '5.00', 'the received Pix');
    assert.deepEqual(await claimed(e2e), ['ACSP']);
    const refund = await call('PUT', `/v2/pix/${e2e}/devolucao/ofRefund1`, { valor: '2.00' });
    assert.equal(refund.status, 201, refund.text);
    const withRefund = await waitFor(async () => {
      const r = await call('GET', `${PAY}?identificadorAdesao=${encodeURIComponent(id)}&endToEndId=${e2e}`);
      return r.body.pagamentos[0]?.devolucoes?.[0]?.status === 'aceito' && r.body.pagamentos[0];
    }, 'the refund in devolucoes');
    assert.equal(withRefund.status, 'aceito');
    assert.equal(withRefund.devolucoes[0].valor, '2.00');
    assert.equal(withRefund.devolucoes[0].identificadorDevolucao, refund.body.rtrId);
  });

  it('HMAC: callbacks carry the signature of the exact body, keyed with webhookSecurity.hash', async () => {
    assert.equal((await configure({ webhookSecurity: { type: 'hmac', hash: 'segredo-da-app' } })).status, 200);
    const id = await enrolled('recusar');
    const received = await waitFor(
      async () =>
        receiver.callsTo('/of').find((c) => (c.body as { identificadorAdesao: string }).identificadorAdesao === id),
      'the callback of the decline',
    );
    assert.equal(received.headers[HMAC_HEADER], signBody('segredo-da-app', received.body));
    // The delivery inspector lists it, named by the enrolment.
    const inspected = await waitFor(async () => {
      const r = await call('GET', '/sandbox/webhooks/entregas?topico=webhook.openfinance');
      return r.body.entregas?.find(
        (e: { assunto?: string; situacao: string }) => e.assunto === id && e.situacao === 'entregue',
      );
    }, 'the delivery in the inspector');
    assert.ok(inspected);
    await configure();
  });

  it('keyset paging: links move forward and back; the last page and filters work', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call('POST', ENROL, body())).body.identificadorAdesao);
    const today = dateIn(svc, 0);
    const first = await call('GET', `${ENROL}?inicio=${today}&fim=${today}`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.porPagina, LIMITS.ofEnrolmentsPerPage);
    assert.ok(first.body.total >= 5);
    assert.equal(first.body.anterior, null);
    const pending = await call('GET', `${ENROL}?inicio=${today}&fim=${today}&status=pendente`);
    assert.ok(pending.body.adesoes.every((a: { status: string }) => a.status === 'pendente'));
    const last = await call('GET', first.body.ultimo);
    assert.equal(last.status, 200);
    assert.equal(last.body.adesoes.at(-1).identificadorAdesao, ids.at(-1));
    // Two at a time: forward to the end through `proximo`, then back through `anterior`, every row once each way.
    const walk = async (start: string, link: 'proximo' | 'anterior') => {
      const seen: string[][] = [];
      for (let next: string | null = start; next; ) {
        const page = await call('GET', next);
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.adesoes.length <= 2);
        seen.push(page.body.adesoes.map((a: { identificadorAdesao: string }) => a.identificadorAdesao));
        next = page.body[link];
      }
      return seen;
    };
    const forward = await walk(`${ENROL}?inicio=${today}&fim=${today}&porPagina=2`, 'proximo');
    const all = forward.flat();
    assert.equal(all.length, first.body.total);
    assert.equal(new Set(all).size, all.length, 'no row twice');
    assert.deepEqual(all.slice(-5), ids);
    const lastPage = await call('GET', `${ENROL}?inicio=${today}&fim=${today}&porPagina=2&pagina=u`);
    const backward = await walk(lastPage.body.atual, 'anterior');
    assert.deepEqual(backward.reverse().flat(), all.slice(all.length - backward.flat().length));
    assert.equal(backward.flat().length, all.length);
    const bad = await call('GET', `${ENROL}?inicio=${today}&fim=${today}&pagina=zzz`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.mensagem, /pagina/);
    const missing = await call('GET', ENROL);
    assert.equal(missing.status, 400);
    assert.match(missing.body.mensagem, /inicio|fim/);
  });

  it('an authorised enrolment ends finalizado the day after its expiry date (account clock)', async () => {
    await configure();
    const created = await call('POST', ENROL, {
      ...body(),
      assinatura: { ...body().assinatura, expiracao: dateIn(svc, 1) },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.identificadorAdesao;
    const path = new URL(created.body.redirectURI).pathname;
    const form = new URLSearchParams({ login: PAYER_CPF, senha: '123456', decisao: 'autorizar' }).toString();
    const answer = await svc.anonymous.request('POST', path, {
      rawBody: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(answer.status, 303);
    const moved = await call('POST', '/sandbox/clock/advance', { segundos: 3 * 86_400 });
    assert.equal(moved.status, 200, moved.text);
    const today = dateIn(svc, 0);
    const since = dateIn(svc, -5);
    const read = await waitFor(async () => {
      const r = await call(
        'GET',
        `${ENROL}?inicio=${since}&fim=${today}&identificadorAdesao=${encodeURIComponent(id)}`,
      );
      return r.body.adesoes?.[0]?.status === 'finalizado' && r.body.adesoes[0];
    }, 'finalizado');
    assert.match(read.motivo, /expiração/);
    const refused = await call('POST', PAY, { identificadorAdesao: id, pagamento: { valor: '5.00', data: today } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.nome, 'adesao_nao_autorizada');
  });

  it("the SDK's ofUpdateAutomaticEnrollment, with the documented body, revokes; ofListAutomaticPixPayment finds", async () => {
    await configure();
    const id = await enrolled();
    const payment = await call('POST', PAY, {
      identificadorAdesao: id,
      pagamento: { valor: '4.00', data: dateIn(svc, 2) },
    });
    assert.equal(payment.status, 200, payment.text);
    const restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    try {
      const efi = sdkFor(svc);
      const found = await efi.ofListAutomaticPixPayment({
        identificadorAdesao: id,
        endToEndId: payment.body.endToEndId,
      });
      assert.equal(found.pagamentos[0].endToEndId, payment.body.endToEndId);
      const body = enrolmentBody(svc, account, participante);
      const revoked = await efi.ofUpdateAutomaticEnrollment(
        {},
        {
          identificador: id,
          nomeFavorecido: body.favorecido.contaBanco.nome,
          status: 'revogado',
          dataExpiracao: body.assinatura.expiracao,
          valorMaximo: body.assinatura.configuracao.automatico.valorMaximo,
        },
      );
      assert.equal(revoked.status, 'revogado');
    } finally {
      restore();
    }
  });

  it('scopes: a token without the Open Finance scopes is refused; the SDK token path answers', async () => {
    const reader = await svc.newParty({ scopes: ['gn.opb.automatic.consent.read'] });
    const readerCall = callerWithFreshToken(reader);
    const refused = await readerCall('POST', ENROL, body());
    assert.equal(refused.status, 403);
    assert.ok(refused.body.nome && refused.body.mensagem);
    const token = await svc.demo.http.request('POST', '/v1/oauth/token', {
      body: { grant_type: 'client_credentials' },
      headers: {
        authorization: 'Basic ' + Buffer.from(`${svc.demo.clientId}:${svc.demo.clientSecret}`).toString('base64'),
      },
    });
    assert.equal(token.status, 200, token.text);
    assert.ok(token.body.access_token);
    const consentWithoutToken = await svc.anonymous.request('GET', '/open-finance/consentimento/' + '0'.repeat(48));
    assert.equal(consentWithoutToken.status, 404, 'public page route: no certificate, no token (unknown link)');
  });
});
