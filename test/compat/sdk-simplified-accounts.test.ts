/**
 * Simplified accounts through the official Node SDK (issue 32 item 5): an integrator the operator trusted opens an
 * account (`createAccount`), its opening webhook hears `conta_aberta`, it issues the account's certificate
 * (`createAccountCertificate`) and reads its credentials once (`getAccountCredentials`); the opened account, with
 * that certificate and those credentials, gets a token and creates a charge. Integrators without the operator's
 * scope are refused, and so is a second account for a CPF or CNPJ the integrator already opened one for, even when
 * both openings race.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EfiPay } from './efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { completeCnpj, completeCpf } from '../../src/platform/documents.ts';

/** The SDK's createAccount body (its JSDoc), for a person with a valid CPF. */
const SIMPLIFIED_ACCOUNT_BODY = {
  clienteFinal: {
    cpf: '52998224725',
    nomeCompleto: 'Maria da Silva',
    dataNascimento: '1990-05-17',
    celular: '11987654321',
    email: 'maria@example.com',
    endereco: {
      cep: '01310100',
      estado: 'SP' as const,
      cidade: 'Sao Paulo',
      bairro: 'Bela Vista',
      logradouro: 'Avenida Paulista',
      numero: '1000',
    },
  },
  meioDeNotificacao: ['sms' as const],
  escoposIntegrados: ['cob.write', 'cob.read', 'gn.pix.evp.read'],
};

describe('official Node SDK: simplified accounts', () => {
  let svc: TestService;
  let restore: () => void;
  let receiver: Receiver;
  let dir: string;
  let integrator: EfiPay;
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => assert.fail('expected a refusal'),
      (error: Record<string, unknown>) => error,
    );

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-sdk-accounts-'));
    integrator = sdkFor(svc);
    await integrator.accountConfigWebhook({}, { webhookUrl: `${receiver.url}/abertura` });
  });
  after(async () => {
    restore?.();
    await receiver?.close();
    await svc?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('opens an account whose certificate and credentials get a token and create a charge', async () => {
    const created = (await integrator.createAccount({}, SIMPLIFIED_ACCOUNT_BODY)) as {
      contaSimplificada: { identificador: string };
      status: string;
    };
    const idContaSimplificada = created.contaSimplificada.identificador;
    assert.equal(created.status, 'conta_aberta');
    // After the registration's own test call (`teste_webhook`).
    const calls = await receiver.waitForCalls(2, '/abertura');
    assert.deepEqual(calls.at(-1)!.body, {
      contaSimplificada: { identificador: idContaSimplificada },
      evento: 'conta_aberta',
    });

    const { certificado } = (await integrator.createAccountCertificate({ idContaSimplificada })) as {
      certificado: string;
    };
    const credentials = (await integrator.getAccountCredentials({ idContaSimplificada })) as Record<string, any>;
    assert.deepEqual(credentials.escopos, SIMPLIFIED_ACCOUNT_BODY.escoposIntegrados);
    assert.equal(credentials.ativo, true);
    assert.match(credentials.conta.numero, /^\d{8}$/);
    const again = (await integrator.getAccountCredentials({ idContaSimplificada })) as Record<string, unknown>;
    assert.equal(again.clientId, credentials.clientId);
    assert.equal(again.clientSecret, undefined, 'the secret is answered once');

    const pem = path.join(dir, 'opened.pem');
    fs.writeFileSync(pem, certificado);
    const opened = new EfiPay({
      sandbox: true,
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      certificate: pem,
      pemKey: pem,
    });
    const { chaves } = (await opened.pixListEvp()) as { chaves: string[] };
    const cob = (await opened.pixCreateImmediateCharge({}, cobBody(chaves[0], '12.34'))) as Record<string, any>;
    assert.equal(cob.status, 'ATIVA');
    assert.equal(cob.valor.original, '12.34');
    // Only the scopes integrated: the opened application cannot send.
    const send = await refusal(opened.getAccountBalance());
    assert.equal(send.nome, 'AcessoNegado');
  });

  it('refuses integrators without the operator-granted scope, and scopes the integrator does not hold', async () => {
    const party = await svc.newParty({ scopes: ['cob.read', 'gn.pix.evp.read'] });
    const pem = path.join(dir, 'party.pem');
    const key = path.join(dir, 'party.key.pem');
    fs.writeFileSync(pem, party.identity.certPem);
    fs.writeFileSync(key, party.identity.keyPem);
    const plain = new EfiPay({
      sandbox: true,
      client_id: party.clientId,
      client_secret: party.clientSecret,
      certificate: pem,
      pemKey: key,
    });
    const unauthorized = await refusal(plain.createAccount({}, SIMPLIFIED_ACCOUNT_BODY));
    assert.equal(unauthorized.nome, 'Unauthorized');
    const unknown = await refusal(
      integrator.createAccount({}, { ...SIMPLIFIED_ACCOUNT_BODY, escoposIntegrados: ['cob.read', 'nao.existe'] }),
    );
    assert.equal(unknown.nome, 'escopo_nao_permitido');
    const missing = await refusal(integrator.getAccountCredentials({ idContaSimplificada: 'naoexiste' }));
    assert.equal(missing.nome, 'conta_simplificada_inexistente');
  });

  it('refuses a second account for the same CPF or CNPJ, one of four concurrent openings winning', async () => {
    const holder = (cpf: string, cnpj?: string) => ({
      ...SIMPLIFIED_ACCOUNT_BODY,
      clienteFinal: { ...SIMPLIFIED_ACCOUNT_BODY.clienteFinal, cpf, ...(cnpj && { cnpj, razaoSocial: 'Maria ME' }) },
    });
    // The first test opened one for SIMPLIFIED_ACCOUNT_BODY's CPF.
    const again = await refusal(integrator.createAccount({}, SIMPLIFIED_ACCOUNT_BODY));
    assert.equal(again.nome, 'conta_simplificada_existente');
    assert.equal(typeof again.mensagem, 'string');

    const cnpj = completeCnpj('112223330001');
    await integrator.createAccount({}, holder(completeCpf('111444777'), cnpj));
    const sameCnpj = await refusal(integrator.createAccount({}, holder(completeCpf('222555888'), cnpj)));
    assert.equal(sameCnpj.nome, 'conta_simplificada_existente');

    const racing = holder(completeCpf('333666999'));
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => integrator.createAccount({}, racing)));
    const opened = outcomes.filter((o) => o.status === 'fulfilled');
    assert.equal(opened.length, 1, 'exactly one of the concurrent openings commits');
    for (const o of outcomes.filter((o) => o.status === 'rejected'))
      assert.equal((o.reason as { nome?: string }).nome, 'conta_simplificada_existente');

    // Another integrator is another relationship: it may open one for the same person.
    const other = await svc.newParty({ scopes: ['gn.registration.write', 'cob.read'] });
    const pem = path.join(dir, 'other.pem');
    const key = path.join(dir, 'other.key.pem');
    fs.writeFileSync(pem, other.identity.certPem);
    fs.writeFileSync(key, other.identity.keyPem);
    const otherIntegrator = new EfiPay({
      sandbox: true,
      client_id: other.clientId,
      client_secret: other.clientSecret,
      certificate: pem,
      pemKey: key,
    });
    const theirs = (await otherIntegrator.createAccount(
      {},
      { ...SIMPLIFIED_ACCOUNT_BODY, escoposIntegrados: ['cob.read'] },
    )) as {
      status: string;
    };
    assert.equal(theirs.status, 'conta_aberta');
  });
});
