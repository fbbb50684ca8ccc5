/**
 * The official Efí Node SDK (`sdk-node-apis-efi`), unchanged, against a real pixd node: immediate charges
 * (`cob`) created, revised, read and listed through the SDK's own methods, with both certificate formats
 * the SDK accepts. Only the base address is changed, by an axios adapter (see point-sdk.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import axios, { type AxiosAdapter, type AxiosResponse } from 'axios';
import type { EfiPay } from './efipay.ts';
import { cobBody, startTestService, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { EFI_ORIGINS, pointSdkAt, rewriteEfiUrl } from '../../src/testing/point-sdk.ts';

const PROBLEM = 'https://pix.bcb.gov.br/api/v2/error/';
const TXID = /^[a-zA-Z0-9]{26,35}$/;

interface Sent {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  status: number | undefined;
}

/** A txid of our own (PUT /v2/cob/:txid): letters and digits, 26 to 35 of them. */
function ownTxid(tag: string): string {
  return (tag + 'Sdk' + Date.now().toString(36) + Math.random().toString(36).slice(2) + '0'.repeat(35))
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, 32);
}

/** The SDK throws the response body itself (`throw errorData`); checks it is a Bacen problem object. */
function problem(name: string, status: number) {
  return (error: unknown) => {
    assert.ok(
      error && typeof error === 'object' && !(error instanceof Error),
      `expected the response body, got ${String(error)}`,
    );
    const body = error as { type: string; title: string; status: number; detail: string; violacoes?: unknown[] };
    assert.equal(body.type, PROBLEM + name);
    assert.ok(body.type.endsWith(name));
    assert.equal(body.status, status);
    assert.equal(typeof body.title, 'string');
    assert.equal(typeof body.detail, 'string');
    return true;
  };
}

describe('official Node SDK (sdk-node-apis-efi) against pixd', () => {
  let svc: TestService;
  let restore: () => void;
  const sent: Sent[] = [];

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    // Records what the SDK hands to the transport (and what came back), then lets pointSdkAt's adapter send it.
    const pointed = axios.defaults.adapter as AxiosAdapter;
    axios.defaults.adapter = async (config) => {
      const entry: Sent = {
        method: String(config.method).toUpperCase(),
        url: String(config.url),
        headers: config.headers.toJSON(),
        status: undefined,
      };
      sent.push(entry);
      try {
        const response: AxiosResponse = await pointed(config);
        entry.status = response.status;
        return response;
      } catch (error) {
        entry.status = (error as { response?: { status?: number } }).response?.status;
        throw error;
      }
    };
  });

  after(async () => {
    restore?.();
    await svc?.close();
  });

  const variants = [
    {
      name: 'PKCS#12 certificate (certificate: .p12)',
      options: (s: TestService) => ({ certificate: s.service.credentials.certificate.p12 }),
    },
    {
      name: 'PEM certificate and key (certificate: .pem, pemKey: .key.pem)',
      options: (s: TestService) => ({
        certificate: s.service.credentials.certificate.pem,
        pemKey: s.service.credentials.certificate.key,
      }),
    },
  ];

  for (const variant of variants) {
    describe(variant.name, () => {
      let efi: EfiPay;
      let chave: string;
      let assigned: string;
      let chosen: string;
      const windowStart = new Date(Date.now() - 3_600_000).toISOString();
      const windowEnd = new Date(Date.now() + 3_600_000).toISOString();

      before(() => {
        chave = svc.service.credentials.chaves[0];
        efi = sdkFor(svc, variant.options(svc));
      });

      it('pixCreateImmediateCharge: POST /v2/cob assigns a txid and returns the charge (201)', async () => {
        const body = cobBody(chave, '123.45');
        const cob = await efi.pixCreateImmediateCharge({}, body);
        assert.match(cob.txid, TXID);
        assert.equal(cob.revisao, 0);
        assert.equal(cob.status, 'ATIVA');
        assert.equal(cob.calendario.expiracao, 3600);
        assert.ok(
          Math.abs(Date.parse(cob.calendario.criacao) - Date.now()) < 60_000,
          `criacao ${cob.calendario.criacao}`,
        );
        assert.deepEqual(cob.valor, { original: '123.45' });
        assert.equal(cob.chave, chave);
        assert.deepEqual(cob.devedor, body.devedor);
        assert.equal(cob.solicitacaoPagador, body.solicitacaoPagador);
        assert.equal(cob.loc.tipoCob, 'cob');
        assert.equal(typeof cob.loc.id, 'number');
        assert.equal(cob.location, cob.loc.location);
        assert.ok(cob.pixCopiaECola.startsWith('000201'), cob.pixCopiaECola);
        assert.ok(cob.pixCopiaECola.includes(cob.location), 'the copy-and-paste code carries the location');
        assigned = cob.txid;
      });

      it("pixCreateCharge: PUT /v2/cob/:txid keeps the caller's txid", async () => {
        const txid = ownTxid(variant.name.slice(0, 3));
        const infoAdicionais = [{ nome: 'Pedido', valor: '42' }];
        const cob = await efi.pixCreateCharge(
          { txid },
          { ...cobBody(chave, '50.00'), calendario: { expiracao: 600 }, infoAdicionais },
        );
        assert.equal(cob.txid, txid);
        assert.equal(cob.revisao, 0);
        assert.equal(cob.status, 'ATIVA');
        assert.equal(cob.calendario.expiracao, 600);
        assert.deepEqual(cob.valor, { original: '50.00' });
        assert.deepEqual((cob as { infoAdicionais?: unknown }).infoAdicionais, infoAdicionais);
        assert.ok(cob.pixCopiaECola.includes(cob.location));
        chosen = txid;
      });

      it('pixUpdateCharge: PATCH /v2/cob/:txid adds one to revisao per revision', async () => {
        const first = await efi.pixUpdateCharge({ txid: assigned }, { valor: { original: '150.00' } });
        assert.equal(first.txid, assigned);
        assert.equal(first.revisao, 1);
        assert.equal(first.status, 'ATIVA');
        assert.deepEqual(first.valor, { original: '150.00' });
        assert.equal(first.solicitacaoPagador, 'Serviço realizado.', 'fields not in the patch are kept');

        const second = await efi.pixUpdateCharge(
          { txid: assigned },
          {
            solicitacaoPagador: 'Pedido 42 revisado.',
            devedor: { cnpj: '11222333000181', nome: 'Empresa Pagadora Ltda' },
          },
        );
        assert.equal(second.revisao, 2);
        assert.deepEqual(second.valor, { original: '150.00' });
        assert.equal(second.solicitacaoPagador, 'Pedido 42 revisado.');
        assert.deepEqual(second.devedor, { cnpj: '11222333000181', nome: 'Empresa Pagadora Ltda' });
        assert.equal(second.location, first.location, 'a revision keeps the location');
      });

      it('pixDetailCharge: GET /v2/cob/:txid returns the current charge, or one revision with `revisao`', async () => {
        const current = await efi.pixDetailCharge({ txid: assigned });
        assert.equal(current.txid, assigned);
        assert.equal(current.revisao, 2);
        assert.equal(current.status, 'ATIVA');
        assert.deepEqual(current.valor, { original: '150.00' });
        assert.equal(current.solicitacaoPagador, 'Pedido 42 revisado.');

        const original = await efi.pixDetailCharge({ txid: assigned, revisao: 0 });
        assert.equal(original.revisao, 0);
        assert.deepEqual(original.valor, { original: '123.45' });
        assert.equal(original.solicitacaoPagador, 'Serviço realizado.');
        assert.deepEqual(original.devedor, { cpf: '12345678909', nome: 'Francisco da Silva' });

        const middle = await efi.pixDetailCharge({ txid: assigned, revisao: 1 });
        assert.equal(middle.revisao, 1);
        assert.deepEqual(middle.valor, { original: '150.00' });
        assert.equal(middle.solicitacaoPagador, 'Serviço realizado.');

        const latest = await efi.pixDetailCharge({ txid: assigned, revisao: 2 });
        assert.deepEqual(latest, current, 'asking for the current revision is the same as not asking');

        const own = await efi.pixDetailCharge({ txid: chosen });
        assert.equal(own.txid, chosen);
        assert.equal(own.revisao, 0);
      });

      it('pixListCharges: GET /v2/cob?inicio&fim lists the charges created', async () => {
        const list = await efi.pixListCharges({ inicio: windowStart, fim: windowEnd });
        assert.equal(list.parametros.inicio, windowStart);
        assert.equal(list.parametros.fim, windowEnd);
        assert.equal(list.parametros.paginacao.paginaAtual, 0);
        assert.ok(list.parametros.paginacao.quantidadeTotalDeItens >= 2);
        assert.equal(list.parametros.paginacao.quantidadeTotalDeItens, list.cobs.length, 'one page holds them all');
        const byTxid = new Map(list.cobs.map((cob) => [cob.txid, cob]));
        assert.ok(byTxid.has(assigned), `list lacks ${assigned}`);
        assert.ok(byTxid.has(chosen), `list lacks ${chosen}`);
        assert.equal(byTxid.get(assigned)!.revisao, 2);
        assert.deepEqual(byTxid.get(assigned)!.valor, { original: '150.00' });
        assert.equal(byTxid.get(chosen)!.revisao, 0);

        const before = await efi.pixListCharges({ inicio: '2000-01-01T00:00:00Z', fim: '2000-01-02T00:00:00Z' });
        assert.deepEqual(before.cobs, [], 'a window before the charges lists none');
        assert.equal(before.parametros.paginacao.quantidadeTotalDeItens, 0);
      });

      it('pixUpdateCharge with status REMOVIDA_PELO_USUARIO_RECEBEDOR removes it; pixListCharges filters by status', async () => {
        const removed = await efi.pixUpdateCharge({ txid: chosen }, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
        assert.equal(removed.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
        assert.equal(removed.revisao, 1);

        const active = await efi.pixListCharges({ inicio: windowStart, fim: windowEnd, status: 'ATIVA' });
        const txids = active.cobs.map((cob) => cob.txid);
        assert.ok(txids.includes(assigned));
        assert.ok(!txids.includes(chosen), 'a removed charge is not ATIVA');
        assert.ok(active.cobs.every((cob) => cob.status === 'ATIVA'));

        await assert.rejects(
          efi.pixUpdateCharge({ txid: chosen }, { valor: { original: '1.00' } }),
          problem('CobOperacaoInvalida', 400),
        );
      });

      it('errors come back as the response body: unknown txid → 404 CobNaoEncontrado', async () => {
        await assert.rejects(
          efi.pixDetailCharge({ txid: 'NaoExiste' + '0'.repeat(20) }),
          problem('CobNaoEncontrado', 404),
        );
        await assert.rejects(efi.pixDetailCharge({ txid: assigned, revisao: 99 }), problem('CobNaoEncontrado', 404));
        await assert.rejects(
          efi.pixUpdateCharge({ txid: 'NaoExiste' + '1'.repeat(20) }, { valor: { original: '1.00' } }),
          problem('CobNaoEncontrado', 404),
        );
      });

      it('errors come back as the response body: a txid used twice → 400 CobOperacaoInvalida naming txid', async () => {
        await assert.rejects(efi.pixCreateCharge({ txid: chosen }, cobBody(chave)), (error: unknown) => {
          problem('CobOperacaoInvalida', 400)(error);
          const violacoes = (error as { violacoes?: Array<{ propriedade: string }> }).violacoes ?? [];
          assert.ok(
            violacoes.some((v) => v.propriedade === 'txid'),
            JSON.stringify(violacoes),
          );
          return true;
        });
      });
    });
  }

  it('wrong client_secret: the token request fails with the OAuth body {error: invalid_client}', async () => {
    const efi = sdkFor(svc, { client_secret: 'not-the-secret' });
    await assert.rejects(efi.pixDetailCharge({ txid: 'x'.repeat(30) }), (error: unknown) => {
      const body = error as { error?: string; error_description?: string };
      assert.equal(body.error, 'invalid_client');
      assert.equal(typeof body.error_description, 'string');
      return true;
    });
  });

  it('every SDK request reached pixd, API calls carried x-skip-mtls-checking: true, and pixd accepted them', () => {
    const toEfi = sent.filter((s) => rewriteEfiUrl(s.url, svc.baseUrl) !== null);
    assert.equal(toEfi.length, sent.length, 'the SDK only addressed Efí origins');
    assert.ok(
      sent.every((s) => s.url.startsWith('https://pix-h.api.efipay.com.br/')),
      'sandbox: true means the Pix sandbox origin',
    );
    const tokens = sent.filter((s) => s.url.endsWith('/oauth/token'));
    const api = sent.filter((s) => !s.url.endsWith('/oauth/token'));
    assert.ok(tokens.length >= 2 && tokens.every((s) => s.method === 'POST'));
    assert.equal(tokens.filter((s) => s.status === 200).length, 2, 'one token per EfiPay instance (the SDK caches it)');
    assert.ok(api.length >= 20);
    for (const s of api) assert.equal(s.headers['x-skip-mtls-checking'], 'true', `${s.method} ${s.url}`);
    const succeeded = api.filter((s) => s.status !== undefined && s.status >= 200 && s.status < 300);
    assert.ok(succeeded.length >= 18, `${succeeded.length} succeeded`);
    assert.ok(
      api.every((s) => s.status !== undefined && s.status !== 401 && s.status !== 403),
      'no call was refused for its headers or certificate',
    );
  });

  it("rewriteEfiUrl moves only the SDK's origins, keeping path and query", () => {
    for (const origin of EFI_ORIGINS)
      assert.equal(
        rewriteEfiUrl(`${origin}/v2/cob?inicio=a`, 'https://127.0.0.1:8443/'),
        'https://127.0.0.1:8443/v2/cob?inicio=a',
      );
    assert.equal(rewriteEfiUrl('https://pix-h.api.efipay.com.br.evil.example/v2/cob', 'https://127.0.0.1:8443'), null);
    assert.equal(rewriteEfiUrl('https://example.com/v2/cob', 'https://127.0.0.1:8443'), null);
  });

  it('without the CA in code: PKCS#12 works alone, PEM needs NODE_EXTRA_CA_CERTS (child processes)', async () => {
    const run = promisify(execFile);
    const child = fileURLToPath(new URL('./sdk-extra-ca.child.ts', import.meta.url));
    const cwd = fileURLToPath(new URL('../..', import.meta.url));
    const outcome = async (extra: Record<string, string>) => {
      const env: NodeJS.ProcessEnv = { ...process.env, PIXD_CREDENTIALS_FILE: svc.service.credentialsPath, ...extra };
      if (!('NODE_EXTRA_CA_CERTS' in extra)) delete env.NODE_EXTRA_CA_CERTS;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', child], { cwd, env, timeout: 60_000 });
      return JSON.parse(stdout.trim().split('\n').pop()!) as {
        p12: { ok: boolean; status?: string; error?: string };
        pem: { ok: boolean; status?: string; error?: string };
      };
    };

    const bare = await outcome({});
    assert.deepEqual(
      { ok: bare.p12.ok, status: bare.p12.status },
      { ok: true, status: 'ATIVA' },
      'the .p12 bundles the CA, which Node trusts',
    );
    assert.equal(bare.pem.ok, false);
    assert.equal(bare.pem.error, 'SELF_SIGNED_CERT_IN_CHAIN');

    const trusted = await outcome({ NODE_EXTRA_CA_CERTS: svc.service.credentials.caCertificate });
    assert.deepEqual({ ok: trusted.p12.ok, status: trusted.p12.status }, { ok: true, status: 'ATIVA' });
    assert.deepEqual({ ok: trusted.pem.ok, status: trusted.pem.status }, { ok: true, status: 'ATIVA' });
  });
});
