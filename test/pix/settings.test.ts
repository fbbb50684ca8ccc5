/**
 * Account settings (/v2/gn/config): the API, and their effect on real payments (POST /sandbox/pix/pay,
 * the same engine as every Pix) and on the webhooks those payments produce.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { overLimit } from '../helpers/burst.ts';

const FROZEN_WALL_MS = Date.UTC(2026, 0, 1);
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { waitFor, wallWindowPassed } from '../helpers/wait.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { WEBHOOK_LOOKUP_SHARED_MS } from '../../src/pix/webhook/events.ts';
import { AccountInputError, DEFAULT_ADDRESS, validateAccountInput } from '../../src/accounts/service.ts';

const DEFAULT_KEY = {
  recebimento: {
    txidObrigatorio: false,
    qrCodeEstatico: { recusarTodos: false },
    webhook: { notificacao: { tarifa: false, pagador: true }, notificar: { pixSemTxid: false } },
  },
  envio: { webhook: { notificacao: { tarifa: false, favorecido: true } } },
};

const keySettings = (recebimento: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  recebimento: { txidObrigatorio: false, qrCodeEstatico: { recusarTodos: false }, ...recebimento },
  ...extra,
});

describe('account settings (/v2/gn/config)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let party: Party;

  before(async () => {
    // Rate-limit windows follow this frozen wall clock, so a burst is counted in one second.
    svc = await startTestService({}, { wallClockMs: () => FROZEN_WALL_MS });
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
  });
  afterEach(async () => {
    await assertLedgerBalanced(svc.service.ctx.db);
    if (party)
      await assertBalanceMatchesLines(
        svc.service.ctx.db,
        party.accountId,
        (await call('GET', '/v2/gn/saldo/')).body.saldo,
      );
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  const call = async (method: string, path: string, body?: unknown, who: Party = party) =>
    who.http.request(method, path, { token: await who.token(), body });
  const fresh = async () => {
    party = await svc.newParty();
    return party;
  };
  const put = async (body: unknown) => {
    const res = await call('PUT', '/v2/gn/config', body);
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const configure = (chaves: Record<string, unknown>, receberSemChave = true) =>
    put({ pix: { receberSemChave, chaves } });
  const pay = (body: Record<string, unknown>) => call('POST', '/sandbox/pix/pay', body);
  const assertRefused = async (body: Record<string, unknown>, code: string) => {
    const res = await pay(body);
    assert.equal(res.status, 400, `${JSON.stringify(body)} should be refused: ${res.text}`);
    assert.equal(res.body.violacoes[0].razao, code);
  };
  const assertPaid = async (body: Record<string, unknown>) => {
    const res = await pay(body);
    assert.equal(res.status, 201, `${JSON.stringify(body)} should be paid: ${res.text}`);
    return res.body;
  };
  const newCob = async (chave = party.chaves[0], original = '25.00') => {
    const res = await call('POST', '/v2/cob', cobBody(chave, original));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const staticCode = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/v2/gn/qrcodes/estatico', { chave: party.chaves[0], ...body });
    assert.equal(res.status, 201, res.text);
    return res.body.qrcode as string;
  };
  const contaOf = async (p: Party) =>
    (await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [p.accountId]))
      .rows[0].conta;
  const invalidAt = async (body: unknown, nome: string, propriedade: string) => {
    const res = await call('PUT', '/v2/gn/config', body);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.nome, nome);
    assert.ok(
      res.body.violacoes.some((v: { propriedade: string }) => v.propriedade === propriedade),
      `${propriedade} in ${res.text}`,
    );
  };

  describe('the API', () => {
    it('reads the defaults for every active key before any PUT', async () => {
      await fresh();
      const res = await call('GET', '/v2/gn/config');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        endereco: DEFAULT_ADDRESS,
        pix: { receberSemChave: true, chaves: { [party.chaves[0]]: DEFAULT_KEY } },
      });
    });

    it("endereco: the holder's address, changed by PUT (the city excepted) and named by due charges", async () => {
      await fresh();
      const endereco = { logradouro: 'Rua da Aurora, 10', cidade: DEFAULT_ADDRESS.cidade, uf: 'PE', cep: '50050000' };
      const written = await put({ endereco, pix: { receberSemChave: true } });
      assert.deepEqual(written.endereco, endereco);
      assert.deepEqual((await put({ pix: { receberSemChave: true } })).endereco, endereco, 'absent: unchanged');
      await invalidAt(
        { endereco: { ...endereco, uf: 'XX' }, pix: { receberSemChave: true } },
        'endereco_invalido',
        'endereco.uf',
      );
      await invalidAt(
        { endereco: { ...endereco, cep: '5005' }, pix: { receberSemChave: true } },
        'json_invalido',
        'endereco.cep',
      );
      await invalidAt(
        { endereco: { ...endereco, cidade: 'Recife' }, pix: { receberSemChave: true } },
        'endereco_invalido',
        'endereco.cidade',
      );
      await invalidAt(
        { endereco: { logradouro: 'x' }, pix: { receberSemChave: true } },
        'json_invalido',
        'endereco.cep',
      );
      // The same rules where an address is first given (pixd account create, the operator API).
      for (const [input, part] of [
        [{ uf: 'XX' }, /^uf:/],
        [{ cep: '5005-000' }, /^cep:/],
        [{ cidade: '東京' }, /^cidade:/],
        [{ logradouro: 'x'.repeat(201) }, /^logradouro:/],
      ] as const)
        assert.throws(
          () => validateAccountInput(input),
          (error: Error) => error instanceof AccountInputError && part.test(error.message),
        );
      const { logradouro, cidade, uf, cep } = validateAccountInput({});
      assert.deepEqual({ logradouro, cidade, uf, cep }, DEFAULT_ADDRESS);
      const cobv = await call('PUT', `/v2/cobv/${'EnderecoTxid'.padEnd(26, '0')}`, {
        calendario: { dataDeVencimento: '2099-12-31' },
        devedor: { cpf: '12345678909', nome: 'Fulano' },
        valor: { original: '12.00' },
        chave: party.chaves[0],
      });
      assert.equal(cobv.status, 201, cobv.text);
      const documento = (
        await svc.service.ctx.db.query<{ documento: string; nome: string }>(
          'select documento, nome from accounts where id = $1',
          [party.accountId],
        )
      ).rows[0];
      assert.deepEqual(cobv.body.recebedor, {
        [documento.documento.length === 14 ? 'cnpj' : 'cpf']: documento.documento,
        nome: documento.nome,
        ...endereco,
      });
    });

    it('stores every field (201), reads them back, and replaces the whole configuration on the next PUT', async () => {
      await fresh();
      const second = (await call('POST', '/v2/gn/evp')).body.chave as string;
      const full = {
        recebimento: {
          txidObrigatorio: true,
          recusarTipoPessoa: 'PF',
          qrCodeEstatico: { recusarTodos: true },
          webhook: { notificacao: { tarifa: true, pagador: false }, notificar: { pixSemTxid: true } },
        },
        envio: { webhook: { notificacao: { tarifa: true, favorecido: false } } },
      };
      const written = await put({ pix: { receberSemChave: false, chaves: { [second]: full } } });
      const expected = {
        endereco: DEFAULT_ADDRESS,
        pix: { receberSemChave: false, chaves: { [party.chaves[0]]: DEFAULT_KEY, [second]: full } },
      };
      assert.deepEqual(written, expected);
      assert.deepEqual((await call('GET', '/v2/gn/config')).body, expected);

      // Only the required fields: the optional objects take their defaults; `second` is back to defaults.
      await put({
        pix: { receberSemChave: true, chaves: { [party.chaves[0]]: keySettings({ txidObrigatorio: true }) } },
      });
      const read = (await call('GET', '/v2/gn/config')).body;
      assert.deepEqual(read.pix.chaves[second], DEFAULT_KEY);
      assert.deepEqual(read.pix.chaves[party.chaves[0]], {
        ...DEFAULT_KEY,
        recebimento: { ...DEFAULT_KEY.recebimento, txidObrigatorio: true },
      });
      assert.equal(read.pix.receberSemChave, true);

      await call('DELETE', `/v2/gn/evp/${second}`);
      assert.deepEqual(
        Object.keys((await call('GET', '/v2/gn/config')).body.pix.chaves),
        [party.chaves[0]],
        'a removed key is no longer shown',
      );
    });

    it('refuses unknown properties, missing required fields and bad values with 400 naming the property', async () => {
      await fresh();
      const k = party.chaves[0];
      await invalidAt({ pix: { receberSemChave: true }, foo: 1 }, 'json_invalido', 'foo');
      await invalidAt({ pix: { receberSemChave: true, bar: 1 } }, 'json_invalido', 'pix.bar');
      await invalidAt(
        { pix: { receberSemChave: true, chaves: { [k]: keySettings({ foo: true }) } } },
        'json_invalido',
        `pix.chaves.${k}.recebimento.foo`,
      );
      await invalidAt(
        {
          pix: {
            receberSemChave: true,
            chaves: { [k]: keySettings({ webhook: { notificacao: { tarifa: true, pagador: true, x: 1 } } }) },
          },
        },
        'json_invalido',
        `pix.chaves.${k}.recebimento.webhook.notificacao.x`,
      );
      await invalidAt(
        {
          pix: {
            receberSemChave: true,
            chaves: { [k]: keySettings({}, { envio: { webhook: { notificacao: { tarifa: true } } } }) },
          },
        },
        'json_invalido',
        `pix.chaves.${k}.envio.webhook.notificacao.favorecido`,
      );
      await invalidAt({ pix: { chaves: {} } }, 'json_invalido', 'pix.receberSemChave');
      await invalidAt({ pix: { receberSemChave: 'sim' } }, 'json_invalido', 'pix.receberSemChave');
      await invalidAt(
        { pix: { receberSemChave: true, chaves: { [k]: { recebimento: { txidObrigatorio: true } } } } },
        'json_invalido',
        `pix.chaves.${k}.recebimento.qrCodeEstatico`,
      );
      await invalidAt(
        { pix: { receberSemChave: true, chaves: { [k]: keySettings({ recusarTipoPessoa: 'PX' }) } } },
        'json_invalido',
        `pix.chaves.${k}.recebimento.recusarTipoPessoa`,
      );
      assert.deepEqual((await call('GET', '/v2/gn/config')).body.pix.chaves[k], DEFAULT_KEY, 'nothing was written');
    });

    it("refuses settings for a key the account does not hold (another account's, unknown, removed), writing nothing", async () => {
      await fresh();
      const other = await svc.newParty();
      const removed = (await call('POST', '/v2/gn/evp')).body.chave as string;
      await call('DELETE', `/v2/gn/evp/${removed}`);
      for (const foreign of [other.chaves[0], 'ninguem@example.com', removed]) {
        await invalidAt(
          { pix: { receberSemChave: false, chaves: { [party.chaves[0]]: keySettings(), [foreign]: keySettings() } } },
          'chave_invalida',
          `pix.chaves.${foreign}`,
        );
      }
      assert.equal((await call('GET', '/v2/gn/config')).body.pix.receberSemChave, true);
      assert.deepEqual(
        (await call('GET', '/v2/gn/config', undefined, other)).body.pix.chaves[other.chaves[0]],
        DEFAULT_KEY,
      );
    });

    it('requires the gn.settings scopes and rate-limits PUT', async () => {
      const reader = await svc.newParty({ scopes: ['gn.settings.read'] });
      assert.equal((await call('GET', '/v2/gn/config', undefined, reader)).status, 200);
      assert.equal((await call('PUT', '/v2/gn/config', { pix: { receberSemChave: false } }, reader)).status, 403);
      const writer = await svc.newParty({ scopes: ['gn.settings.write'] });
      assert.equal((await call('PUT', '/v2/gn/config', { pix: { receberSemChave: false } }, writer)).status, 201);
      assert.equal((await call('GET', '/v2/gn/config', undefined, writer)).status, 403);

      // An invalid body is cheap and still counts: the limit is checked before validation.
      const burster = await svc.newParty({ scopes: ['gn.settings.write'] });
      const result = await overLimit(() => call('PUT', '/v2/gn/config', { nada: true }, burster));
      assert.equal(result.count(429), 1);
      assert.equal(result.count(400), 500);
    });
  });

  describe('effects on payments', () => {
    it('receberSemChave: bank-data payments are received by default and refused once it is false', async () => {
      await fresh();
      const conta = await contaOf(party);
      const paid = await assertPaid({ conta, valor: '12.00' });
      assert.equal(paid.chave, undefined);
      assert.equal(paid.txid, undefined);
      await configure({}, false);
      await assertRefused({ conta, valor: '12.00' }, 'recebimento_sem_chave_recusado');
      await assertPaid({ chave: party.chaves[0], valor: '12.00' });
      await assertRefused({ conta: '1', valor: '1.00' }, 'conta_inexistente');
      assert.equal(
        (await pay({ conta })).body.violacoes[0].propriedade,
        'valor',
        'a bank-data payment names its amount',
      );
      assert.equal((await call('GET', '/v2/gn/saldo/')).body.saldo, '24.00');
    });

    it('txidObrigatorio: Pix without txid to that key are refused; with a txid they pass; other keys are untouched', async () => {
      await fresh();
      const other = (await call('POST', '/v2/gn/evp')).body.chave as string;
      await configure({ [party.chaves[0]]: keySettings({ txidObrigatorio: true }) });
      await assertRefused({ chave: party.chaves[0], valor: '5.00' }, 'txid_obrigatorio');
      await assertRefused({ pixCopiaECola: await staticCode({ valor: '5.00' }) }, 'txid_obrigatorio');
      await assertPaid({ pixCopiaECola: await staticCode({ valor: '5.00', txid: 'Pedido1' }) });
      await assertPaid({ txid: (await newCob()).txid });
      await assertPaid({ chave: other, valor: '5.00' });
    });

    it('recusarTipoPessoa: PF refuses CPF payers, PJ refuses CNPJ payers, on charges and keys alike', async () => {
      await fresh();
      const pf = { nome: 'Maria', cpf: '52998224725' };
      const pj = { nome: 'Empresa', cnpj: '11222333000181' };
      await configure({ [party.chaves[0]]: keySettings({ recusarTipoPessoa: 'PF' }) });
      const cob = await newCob();
      await assertRefused({ txid: cob.txid, pagador: pf }, 'tipo_pessoa_recusado');
      await assertRefused({ txid: cob.txid }, 'tipo_pessoa_recusado');
      await assertRefused({ chave: party.chaves[0], valor: '3.00', pagador: pf }, 'tipo_pessoa_recusado');
      await assertPaid({ txid: cob.txid, pagador: pj });

      await configure({ [party.chaves[0]]: keySettings({ recusarTipoPessoa: 'PJ' }) });
      await assertRefused({ chave: party.chaves[0], valor: '3.00', pagador: pj }, 'tipo_pessoa_recusado');
      await assertPaid({ chave: party.chaves[0], valor: '3.00', pagador: pf });
      assert.equal((await call('GET', `/v2/cob/${cob.txid}`)).body.pix[0].pagador.cnpj, pj.cnpj);
    });

    it('qrCodeEstatico.recusarTodos: every static-code payment is refused, transfers and charges are not', async () => {
      await fresh();
      await configure({ [party.chaves[0]]: keySettings({ qrCodeEstatico: { recusarTodos: true } }) });
      await assertRefused(
        { pixCopiaECola: await staticCode({ valor: '8.00', txid: 'Loja1' }) },
        'qrcode_estatico_recusado',
      );
      await assertRefused({ pixCopiaECola: await staticCode({}), valor: '8.00' }, 'qrcode_estatico_recusado');
      await assertPaid({ chave: party.chaves[0], valor: '8.00' });
      const cob = await newCob();
      await assertPaid({ pixCopiaECola: cob.pixCopiaECola });
      await configure({});
      await assertPaid({ pixCopiaECola: await staticCode({ valor: '8.00', txid: 'Loja1' }) });
    });

    it('refuses before anything is written: no received Pix, no ledger entry, the charge stays ATIVA', async () => {
      await fresh();
      await configure({ [party.chaves[0]]: keySettings({ recusarTipoPessoa: 'PF' }) });
      const cob = await newCob();
      await assertRefused({ txid: cob.txid }, 'tipo_pessoa_recusado');
      assert.equal((await call('GET', `/v2/cob/${cob.txid}`)).body.status, 'ATIVA');
      const { rows } = await svc.service.ctx.db.query<{ n: number }>(
        'select count(*)::int as n from received_pix where account_id = $1',
        [party.accountId],
      );
      assert.equal(rows[0].n, 0);
      assert.equal((await call('GET', '/v2/gn/saldo/')).body.saldo, '0.00');
    });
  });

  describe('effects on webhooks', () => {
    const deliveryOf = async (e2e: string) =>
      waitFor(async () => {
        const d = (await webhookApi(party).deliveries('webhook.pix')).find((x) => x.assunto === e2e);
        return d && d.situacao !== 'pendente' && d;
      }, `delivery of ${e2e} settled`);
    const callbackOf = async (e2e: string) => {
      await waitFor(
        async () => receiver.calls.some((c) => c.body?.pix?.[0]?.endToEndId === e2e),
        `callback for ${e2e}`,
      );
      return receiver.calls.find((c) => c.body?.pix?.[0]?.endToEndId === e2e)!.body.pix[0];
    };

    it('by default: Pix without txid are not notified; Pix with a txid carry the payer and no fee', async () => {
      await fresh();
      await webhookApi(party).registerPix(receiver.url);
      const transfer = await assertPaid({ chave: party.chaves[0], valor: '4.00' });
      assert.equal((await deliveryOf(transfer.endToEndId)).situacao, 'nao_enviado');
      assert.ok(!receiver.calls.some((c) => c.body?.pix?.[0]?.endToEndId === transfer.endToEndId));
      const charged = await assertPaid({ txid: (await newCob()).txid, pagador: { nome: 'Maria', cpf: '52998224725' } });
      const notified = await callbackOf(charged.endToEndId);
      assert.deepEqual(notified.pagador, { cpf: '52998224725', nome: 'Maria' });
      assert.equal(notified.gnExtras, undefined);
    });

    it('notificar.pixSemTxid, notificacao.pagador and notificacao.tarifa shape what is sent', async () => {
      await fresh();
      await webhookApi(party).registerPix(receiver.url);
      await configure({
        [party.chaves[0]]: keySettings({
          webhook: { notificacao: { tarifa: true, pagador: false }, notificar: { pixSemTxid: true } },
        }),
      });
      const transfer = await assertPaid({ chave: party.chaves[0], valor: '4.00' });
      const notified = await callbackOf(transfer.endToEndId);
      assert.equal(notified.txid, undefined);
      assert.equal(notified.pagador, undefined, 'pagador: false leaves the payer out');
      assert.deepEqual(notified.gnExtras, { tarifa: '0.00' }, 'no Pix fee is charged: the fee shown is zero');
      const charged = await assertPaid({ txid: (await newCob()).txid });
      assert.equal((await callbackOf(charged.endToEndId)).pagador, undefined);

      await configure({
        [party.chaves[0]]: keySettings({ webhook: { notificacao: { tarifa: false, pagador: true } } }),
      });
      // Deliveries share a key's settings for a moment (src/pix/webhook/events.ts): let the change reach them.
      await wallWindowPassed(Date.now(), WEBHOOK_LOOKUP_SHARED_MS);
      const quiet = await assertPaid({ chave: party.chaves[0], valor: '4.00' });
      assert.equal(
        (await deliveryOf(quiet.endToEndId)).situacao,
        'nao_enviado',
        'notificar absent: back to the default',
      );
    });
  });
});
