/**
 * pixd against the Central Bank's API Pix 2.9.0 (docs/reference/bacen-pix-api-2.9.0.yaml): a realistic session
 * that calls every Bacen operation pixd implements (charges, due charges and their batches, locations,
 * payloads, received Pix and refunds, webhooks, recurrences and their requests and charges), successes and
 * refusals alike, and validates each answer against the file (the status it declares, the schema of the
 * body; a payload's JWS decoded) and each webhook pixd sent against the file's callbacks. Where the file's
 * own examples break one of its rules, the rule is relaxed as test/helpers/bacen.ts lists; a new deviation
 * fails here.
 */
import { after, before, describe, it } from 'node:test';
import fs from 'node:fs';
import assert from 'node:assert/strict';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../../src/platform/calendar.ts';
import { BacenSpec, RELAXATIONS, type Finding } from '../helpers/bacen.ts';
import type { Response } from '../helpers/https-client.ts';
import { Receiver } from '../helpers/receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { outboxIdle, waitFor } from '../helpers/wait.ts';
import { item, newBatchId, newTxid } from './lotecobv-fixtures.ts';
import { cobvBody, txidFor } from './payload-fixtures.ts';
import { recBody } from './rec-fixtures.ts';

const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-12-31T23:59:59Z';
const addDays = (date: string, days: number) => fromEpochDay(toEpochDay(date) + days);

/** Where the interface names a success status other than Bacen's (interface: Webhooks table). */
const INTERFACE_STATUSES: Record<string, number[]> = {
  'PUT /webhook/{chave}': [201],
  'PUT /webhookcobr': [201],
};

/** The interface's limits list: each of these endpoints is rate limited (500 requests per second). */
const RATE_LIMITED = [
  'POST /v2/cob',
  'PUT /v2/cob/:txid',
  'PUT /v2/cobv/:txid',
  'POST /v2/rec',
  'POST /v2/solicrec',
  'PUT /v2/cobr/:txid',
  'POST /v2/cobr',
  'POST /v2/cobr/:txid/retentativa/:data',
  'PUT /v2/gn/pix/:idEnvio',
  'POST /v2/gn/qrcodes/detalhar',
  'PUT /v2/gn/pix/:idEnvio/qrcode',
  'PUT /v2/gn/pix/:e2eid/devolucao/:id',
  'POST /v2/loc',
  'PUT /v2/lotecobv/:id',
  'POST /v2/gn/split/config',
  'PUT /v2/gn/split/config/:id',
  'PUT /v2/gn/split/cob/:txid/vinculo/:splitConfigId',
  'PUT /v2/gn/split/cobv/:txid/vinculo/:splitConfigId',
  'PUT /v2/webhook/:chave',
  'POST /v2/gn/evp',
  'PUT /v2/gn/config',
  'POST /v2/gn/infracoes/:idInfracao/defesa',
  'POST /v2/gn/relatorios/extrato-conciliacao',
];

describe('conformance with the Bacen API Pix 2.9.0 file', () => {
  let svc: TestService;
  let spec: BacenSpec;
  let receiver: Receiver;
  let chave: string;
  let conta: string;
  const findings: Finding[] = [];
  /** Statuses seen per Bacen operation. */
  const seen = new Map<string, Set<number>>();

  /** Validates what pixd answered, if the request was a Bacen operation. */
  const record = (method: string, url: string, res: Response) => {
    const op = spec.operationOf(method, url);
    if (!op) return res;
    if (!seen.has(op.key)) seen.set(op.key, new Set());
    seen.get(op.key)!.add(res.status);
    const contentType = String(res.headers['content-type'] ?? '');
    findings.push(
      ...spec
        .check(op, { status: res.status, contentType, text: res.text }, INTERFACE_STATUSES[op.key])
        .map((f) => ({ ...f, example: `${method} ${url}: ${f.example}` })),
    );
    return res;
  };
  /** A call as the demo account, with a token issued on its clock now (the test moves that clock). */
  const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const token = await svc.demo.http.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials' },
      headers: {
        authorization: `Basic ${Buffer.from(`${svc.demo.clientId}:${svc.demo.clientSecret}`).toString('base64')}`,
      },
    });
    return record(
      method,
      path,
      await svc.demo.http.request(method, path, { token: token.body.access_token, body, headers }),
    );
  };
  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await call(method, path, body);
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    return res.body;
  };
  /** A payer's institution fetching a location (no credentials). */
  const fetchPayload = async (location: string) => {
    const url = `https://${location}`;
    const res = await svc.anonymous.request('GET', url, { headers: { accept: 'application/jose' } });
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    return record('GET', url, res);
  };
  const openapi = async () =>
    (await svc.anonymous.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
  const today = async () => brasiliaDate(new Date((await ok('GET', '/sandbox/clock')).agora));
  const businessDayIn = async (days: number) => {
    let day = toEpochDay(await today()) + days;
    while (!isBusinessDay(day)) day++;
    return fromEpochDay(day);
  };

  before(async () => {
    [svc, spec] = await Promise.all([startTestService(), BacenSpec.load()]);
    receiver = await Receiver.start({ clientCaPem: svc.caPem });
    chave = svc.demo.chaves[0];
    conta = (
      await svc.service.ctx.db.query<{ conta: string }>('select conta from accounts where id = $1', [
        svc.demo.accountId,
      ])
    ).rows[0].conta;
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('each relaxed rule is one the file’s own examples break (or no value can keep), and the relaxation mends it', async () => {
    const unrelaxed = await BacenSpec.load([]);
    const before = unrelaxed.exampleErrors();
    const after = spec.exampleErrors();
    for (const { rule, evidence } of RELAXATIONS) {
      if ('brokenBy' in evidence) {
        assert.ok(
          before.some((line) => evidence.brokenBy.test(line)),
          `no example of the file breaks: ${rule}`,
        );
        assert.deepEqual(
          after.filter((line) => evidence.brokenBy.test(line)),
          [],
          `still broken with the relaxation: ${rule}`,
        );
      } else {
        const strict = evidence.unsatisfiable(unrelaxed.doc);
        const candidates = ['5.00', { original: { valor: '5.00' } }, 5, null, [], true];
        assert.deepEqual(
          candidates.filter((value) => unrelaxed.accepts(strict, value)),
          [],
          `some value keeps: ${rule}`,
        );
        assert.ok(spec.accepts(evidence.unsatisfiable(spec.doc), '5.00'), `relaxed, an amount keeps: ${rule}`);
      }
    }
  });

  it('webhooks: registration, reads and lists', async () => {
    await ok('PUT', `/v2/webhook/${chave}`, { webhookUrl: `${receiver.url}/hook` }, 201);
    await ok('GET', `/v2/webhook/${chave}`);
    await ok('GET', `/v2/webhook?${RANGE}`);
    await ok('PUT', '/v2/webhookrec', { webhookUrl: `${receiver.url}/hook` });
    await ok('GET', '/v2/webhookrec');
    await ok('PUT', '/v2/webhookcobr', { webhookUrl: `${receiver.url}/hook` }, 201);
    await ok('GET', '/v2/webhookcobr');
    assert.equal((await call('GET', '/v2/webhook/chave-de-ninguem')).status, 404);
    assert.equal((await call('PUT', `/v2/webhook/${chave}`, { webhookUrl: 'http://x' })).status, 400);
  });

  it('immediate charges, their locations and payloads, received Pix and refunds', async () => {
    // 5.00: the sandbox's payer pays it at once; 100.00 stays ATIVA.
    const paid = await ok(
      'POST',
      '/v2/cob',
      { calendario: { expiracao: 3600 }, valor: { original: '5.00' }, chave },
      201,
    );
    const txid = txidFor('bacencob');
    const body = {
      calendario: { expiracao: 3600 },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: { original: '100.00' },
      chave,
      solicitacaoPagador: 'Serviço realizado.',
      infoAdicionais: [{ nome: 'Campo 1', valor: 'Informação Adicional1 do PSP-Recebedor' }],
    };
    const active = await ok('PUT', `/v2/cob/${txid}`, body, 201);
    await ok('PATCH', `/v2/cob/${txid}`, { valor: { original: '101.00' } });
    await ok('GET', `/v2/cob/${txid}?revisao=0`);
    await fetchPayload(active.location);
    const settled = await waitFor(async () => {
      const read = await call('GET', `/v2/cob/${paid.txid}`);
      return read.body.status === 'CONCLUIDA' && read.body;
    }, 'the sandbox payer pays the 5.00 charge');
    await ok('GET', `/v2/cob?${RANGE}`);
    await ok('GET', `/v2/cob?${RANGE}&status=CONCLUIDA`);
    assert.equal((await call('POST', '/v2/cob', { valor: { original: 'abc' }, chave })).status, 400);
    assert.equal((await call('GET', `/v2/cob/${txidFor('nenhuma')}`)).status, 404);
    assert.equal((await call('PATCH', `/v2/cob/${paid.txid}`, { valor: { original: '1.00' } })).status, 400);

    // Locations: a free one, one a charge takes, then released.
    const loc = await ok('POST', '/v2/loc', { tipoCob: 'cob' }, 201);
    await ok('GET', `/v2/loc/${loc.id}`);
    const onLoc = txidFor('bacenloc');
    await ok('PUT', `/v2/cob/${onLoc}`, { ...body, loc: { id: loc.id } }, 201);
    await ok('GET', `/v2/loc/${loc.id}`);
    await ok('GET', `/v2/loc?${RANGE}`);
    await ok('DELETE', `/v2/loc/${loc.id}/txid`);
    assert.equal((await call('GET', '/v2/loc/999999999')).status, 404);
    assert.equal((await call('POST', '/v2/loc', { tipoCob: 'nada' })).status, 400);

    // The Pix received, a refund of it (settled: the webhook then carries it).
    const e2e = settled.pix[0].endToEndId;
    await ok('GET', `/v2/pix/${e2e}`);
    await ok('PUT', `/v2/pix/${e2e}/devolucao/bacen1`, { valor: '1.00' }, 201);
    await waitFor(
      async () => (await call('GET', `/v2/pix/${e2e}/devolucao/bacen1`)).body.status === 'DEVOLVIDO',
      'the refund settles',
    );
    await ok('GET', `/v2/pix/${e2e}`);
    // A Pix to the key with no charge (no txid), from a company.
    const byKey = await ok(
      'POST',
      '/sandbox/pix/pay',
      { chave, valor: '3.00', pagador: { nome: 'Empresa SA', cnpj: '12345678000195' }, infoPagador: 'Obrigado' },
      201,
    );
    await ok('GET', `/v2/pix/${byKey.endToEndId}`);
    await ok('GET', `/v2/pix?${RANGE}`);
    await ok('GET', `/v2/cob/${paid.txid}`);
    await fetchPayload(settled.location);
    // A charge removed by its receiver, read and listed.
    const removed = txidFor('bacenremovida');
    await ok('PUT', `/v2/cob/${removed}`, { ...body, devedor: { cnpj: '12345678000195', nome: 'Empresa SA' } }, 201);
    await ok('PATCH', `/v2/cob/${removed}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    await ok('GET', `/v2/cob?${RANGE}&cnpj=12345678000195`);
    // Refusals of the guard: no token, and a token without the scope.
    record('GET', `/v2/cob/${removed}`, await svc.demo.http.request('GET', `/v2/cob/${removed}`));
    const reader = await svc.newParty({ scopes: ['cob.read'] });
    const denied = await reader.http.request('POST', '/v2/cob', { token: await reader.token(), body });
    assert.equal(record('POST', '/v2/cob', denied).status, 403);
    assert.equal((await call('PUT', `/v2/pix/${e2e}/devolucao/bacen2`, { valor: '9.00' })).status, 400);
    assert.equal((await call('GET', `/v2/pix/${e2e}/devolucao/nenhuma`)).status, 404);
    assert.equal((await call('GET', `/v2/pix?inicio=x`)).status, 400);
  });

  it('due charges, their payloads and batches', async () => {
    const txid = txidFor('bacencobv');
    const created = await ok('PUT', `/v2/cobv/${txid}`, cobvBody(svc, chave), 201);
    await ok('PATCH', `/v2/cobv/${txid}`, { solicitacaoPagador: 'Mensalidade de março.' });
    await ok('GET', `/v2/cobv/${txid}`);
    await fetchPayload(created.location);
    // 8.00: paid by the sandbox's payer, so a read shows its Pix.
    const small = txidFor('bacencobvpaga');
    await ok('PUT', `/v2/cobv/${small}`, cobvBody(svc, chave, '8.00'), 201);
    await waitFor(async () => (await call('GET', `/v2/cobv/${small}`)).body.status === 'CONCLUIDA', 'cobv paid');
    await ok('GET', `/v2/cobv?${RANGE}`);
    const removed = txidFor('bacencobvremovida');
    await ok('PUT', `/v2/cobv/${removed}`, cobvBody(svc, chave, '300.00'), 201);
    await ok('PATCH', `/v2/cobv/${removed}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    await ok('GET', `/v2/cobv/${removed}`);
    assert.equal((await call('PUT', `/v2/cobv/${txidFor('x')}`, { ...cobvBody(svc, chave), chave: 'x' })).status, 400);
    assert.equal((await call('GET', `/v2/cobv/${txidFor('nenhuma')}`)).status, 404);

    const id = newBatchId();
    const first = newTxid('BacenLote');
    await ok(
      'PUT',
      `/v2/lotecobv/${id}`,
      { descricao: 'Lote', cobsv: [item(chave, first), item(chave, newTxid('BacenLote'))] },
      202,
    );
    await waitFor(async () => {
      const batch = await call('GET', `/v2/lotecobv/${id}`);
      return batch.body.cobsv?.every((c: { status: string }) => c.status !== 'EM_PROCESSAMENTO');
    }, 'the batch processed');
    await ok('PATCH', `/v2/lotecobv/${id}`, { cobsv: [{ txid: first, valor: { original: '110.00' } }] }, 202);
    await ok('GET', `/v2/lotecobv/${id}`);
    await ok('GET', `/v2/lotecobv?${RANGE}`);
    await ok('GET', `/v2/cobv?${RANGE}&loteCobVId=${id}`);
    assert.equal((await call('GET', '/v2/lotecobv/999999')).status, 404);
    assert.equal((await call('PUT', `/v2/lotecobv/${newBatchId()}`, { descricao: 'x', cobsv: [] })).status, 400);
  });

  it('recurrences, their locations and payloads, requests to the payer and recurring charges', async () => {
    const locrec = await ok('POST', '/v2/locrec', undefined, 201);
    await ok('GET', `/v2/locrec/${locrec.id}`);
    const rec = await ok('POST', '/v2/rec', recBody({ loc: locrec.id }), 201);
    await ok('GET', `/v2/locrec?${RANGE}&idRecPresente=true`);
    await fetchPayload(locrec.location);
    await ok('GET', `/v2/rec/${rec.idRec}`);
    await ok('PATCH', `/v2/rec/${rec.idRec}`, { vinculo: { devedor: { nome: 'Fulano de Tal Junior' } } });
    await ok('GET', `/v2/rec?${RANGE}`);
    await ok('DELETE', `/v2/locrec/${locrec.id}/idRec`);
    assert.equal((await call('GET', '/v2/rec/RN9999900820990101abcdefghijk')).status, 404);
    assert.equal((await call('POST', '/v2/rec', { vinculo: {} })).status, 400);

    // A request to the payer's institution, cancelled; another one accepted (journey 1).
    const destinatario = { cpf: '45164632481', conta: '12345678', ispbParticipante: '12345678', agencia: '0001' };
    const expiry = new Date(Date.now() + 86_400_000 * 30).toISOString();
    const askPayer = (idRec: string) =>
      ok('POST', '/v2/solicrec', { idRec, calendario: { dataExpiracaoSolicitacao: expiry }, destinatario }, 201);
    const solic = await askPayer(rec.idRec);
    await ok('GET', `/v2/solicrec/${solic.idSolicRec}`);
    await ok('PATCH', `/v2/solicrec/${solic.idSolicRec}`, { status: 'CANCELADA' }, 201);
    const second = await askPayer(rec.idRec);
    await ok('POST', `/sandbox/solicrec/${second.idSolicRec}/aceitar`);
    await ok('GET', `/v2/solicrec/${second.idSolicRec}`);
    await ok('GET', `/v2/rec/${rec.idRec}`);
    assert.equal((await call('GET', '/v2/solicrec/SC9999900820990101abcdefghijk')).status, 404);
    // Recurrences that ended: one the payer's institution rejected, one the receiver cancelled.
    const rejected = await ok('POST', '/v2/rec', recBody(), 201);
    const refused = await askPayer(rejected.idRec);
    await ok('POST', `/sandbox/solicrec/${refused.idSolicRec}/rejeitar`);
    await ok('GET', `/v2/rec/${rejected.idRec}`);
    const cancelledRec = await ok('POST', '/v2/rec', recBody(), 201);
    await ok('PATCH', `/v2/rec/${cancelledRec.idRec}`, { status: 'CANCELADA' });
    await ok('GET', `/v2/rec?${RANGE}`);

    // Recurring charges on a weekly recurrence the payer approved, retries allowed.
    const weekly = await ok(
      'POST',
      '/v2/rec',
      recBody({
        calendario: { dataInicial: await today(), periodicidade: 'SEMANAL' },
        politicaRetentativa: 'PERMITE_3R_7D',
        valor: { valorMinimoRecebedor: '5.00' },
      }),
      201,
    );
    await ok('POST', `/sandbox/rec/${weekly.idRec}/aprovar`);
    const due = await businessDayIn(3);
    const cobr = (dataDeVencimento: string, original: string) => ({
      idRec: weekly.idRec,
      calendario: { dataDeVencimento },
      valor: { original },
      ajusteDiaUtil: false,
      recebedor: { conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
      devedor: {
        cpf: '45164632481',
        nome: 'Fulano de Tal',
        logradouro: 'Rua 1',
        cidade: 'Recife',
        uf: 'PE',
        cep: '50000000',
      },
      infoAdicional: 'Mensalidade',
    });
    const failing = txidFor('bacencobr');
    await ok('PUT', `/v2/cobr/${failing}`, cobr(due, '50.00'), 201);
    await ok('GET', `/v2/cobr/${failing}`);
    const cancelled = await ok('POST', '/v2/cobr', cobr(addDays(due, 7), '6.00'), 201);
    await ok('PATCH', `/v2/cobr/${cancelled.txid}`, { status: 'CANCELADA' });
    await ok('GET', `/v2/cobr?${RANGE}`);
    assert.equal((await call('POST', '/v2/cobr', cobr(due, '1.00'))).status, 400);
    assert.equal((await call('GET', `/v2/cobr/${txidFor('nenhuma')}`)).status, 404);
    // On the due date the 50.00 attempt fails in the sandbox; a retry is asked for the next day.
    const ms = Date.parse(`${due}T04:00:00Z`) - Date.parse((await ok('GET', '/sandbox/clock')).agora);
    await ok('POST', '/sandbox/clock/advance', { segundos: Math.ceil(ms / 1000) });
    await waitFor(
      async () => (await call('GET', `/v2/cobr/${failing}`)).body.tentativas?.[0]?.status === 'REJEITADA',
      'the first attempt fails',
    );
    await ok('POST', `/v2/cobr/${failing}/retentativa/${addDays(due, 1)}`, undefined, 201);
    await ok('GET', `/v2/cobr/${failing}`);
    // A 5.00 charge of the same recurrence is paid on its date: its read carries the Pix.
    const paid = await ok('POST', '/v2/cobr', cobr(await businessDayIn(3), '5.00'), 201);
    const paidDue = (await ok('GET', `/v2/cobr/${paid.txid}`)).calendario.dataDeVencimento as string;
    const toDue = Date.parse(`${paidDue}T04:00:00Z`) - Date.parse((await ok('GET', '/sandbox/clock')).agora);
    await ok('POST', '/sandbox/clock/advance', { segundos: Math.ceil(toDue / 1000) });
    await waitFor(async () => (await call('GET', `/v2/cobr/${paid.txid}`)).body.status === 'CONCLUIDA', 'paid');
    await ok('GET', `/v2/cobr?${RANGE}`);
  });

  it('webhooks pixd sent are the file’s callbacks; the registrations are removed', async () => {
    await outboxIdle(svc);
    const hooks = receiver.calls.filter((c) => /\/hook\/(pix|rec|cobr)$/.test(c.path));
    for (const kind of ['pix', 'rec', 'cobr'] as const)
      assert.ok(
        hooks.some((c) => c.path.endsWith(`/${kind}`)),
        `a /${kind} callback was sent`,
      );
    const operations = { pix: 'PUT /webhook/{chave}', rec: 'PUT /webhookrec', cobr: 'PUT /webhookcobr' } as const;
    const names = { pix: 'listaPix', rec: 'rec', cobr: 'cobr' } as const;
    for (const hook of hooks) {
      const kind = hook.path.split('/').at(-1) as keyof typeof operations;
      const op = spec.operations.find((o) => o.key === operations[kind])!;
      findings.push(...spec.checkCallback(op, names[kind], hook.body));
    }
    await ok('DELETE', `/v2/webhook/${chave}`, undefined, 204);
    await ok('DELETE', '/v2/webhookrec', undefined, 204);
    await ok('DELETE', '/v2/webhookcobr', undefined, 204);
    assert.equal((await call('GET', '/v2/webhookrec')).status, 404);
  });

  it('every Bacen operation pixd implements was called and answered as the file says', async () => {
    const document = await openapi();
    const implemented = spec.operations.filter((op) =>
      Object.entries(document.paths).some(
        ([path, methods]) => op.method.toLowerCase() in methods && spec.operationOf(op.method, path) === op,
      ),
    );
    // Every operation of the file, the payloads included.
    assert.deepEqual(
      spec.operations.filter((op) => !implemented.includes(op)).map((op) => op.key),
      [],
      'Bacen operations pixd does not serve',
    );
    const unexercised = implemented
      .filter((op) => ![...(seen.get(op.key) ?? [])].some((status) => status >= 200 && status < 300))
      .map((op) => op.key);
    assert.deepEqual(unexercised, [], 'operations this test never saw succeed');
    // Each broken rule once, with one instance of it.
    const broken = new Map<string, string>();
    for (const f of findings) {
      const rule = `${f.operation} → ${f.status}: ${f.problem}`;
      if (!broken.has(rule)) broken.set(rule, f.example);
    }
    assert.deepEqual(
      [...broken].map(([rule, example]) => `${rule}\n    e.g. ${example}`),
      [],
      'answers that break the Bacen file',
    );
  });

  it('every endpoint answers the success status the interface names for it', async () => {
    const document = await openapi();
    const endpoints = JSON.parse(
      fs.readFileSync(new URL('../../src/platform/interface-endpoints.json', import.meta.url), 'utf8'),
    ) as Record<string, { success: string }>;
    const wrong = Object.entries(endpoints).flatMap(([endpoint, { success }]) => {
      const named = /^(\d{3})\b/.exec(success)?.[1];
      const [method, path] = endpoint.split(' ');
      const responses = document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]?.responses;
      if (!responses) return [`${endpoint}: not served`];
      const declared = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
      // A route that declares no success body (a removal) says only 2XX: nothing to compare.
      return named && declared.length && !declared.includes(named)
        ? [`${endpoint}: the interface names ${named}, pixd answers ${declared.join(', ')}`]
        : [];
    });
    assert.deepEqual(wrong, []);
  });

  it('the interface’s rate-limited endpoints exist and are rate limited', async () => {
    const document = await openapi();
    const missing = RATE_LIMITED.filter((endpoint) => {
      const [method, path] = endpoint.split(' ');
      const operation = document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      return !operation?.responses['429'];
    });
    assert.deepEqual(missing, [], 'listed under the 500 requests per second limit, without a rate limit here');
  });
});
