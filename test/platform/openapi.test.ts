// suite: database-independent
/**
 * The API reference as a tool reads it: /openapi.json passes an OpenAPI linter (Redocly's recommended
 * rules, no errors), and every operation says how to authenticate and what its family's errors look like.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import fastJson from 'fast-json-stringify';
import { startTestService, type TestService } from '../helpers/service.ts';
import { billingApi } from '../billing/helpers.ts';
import { REQUEST_EXAMPLES } from '../../src/platform/openapi-examples.ts';
import { EXAMPLE_KEY } from '../../src/platform/example-values.ts';
import { requestAjv } from '../../src/platform/validators.ts';
import { isValidCnpj, isValidCpf } from '../../src/platform/documents.ts';

const UNDECLARED = [
  'GET /qr/v2/{token}',
  'GET /qr/v2/cobv/{token}',
  'GET /qr/v2/rec/{token}',
  'GET /.well-known/jwks.json',
  'GET /qr/visualizar/{token}',
  'GET /web/payment-token.mjs',
  'GET /web/payment-token.js',
  'GET /checkout/{token}',
  'GET /link/{token}',
  'GET /boleto/{file}',
  'GET /carne/{file}',
];

type Media = { schema: object; example?: unknown };
type Operation = {
  security?: Record<string, string[]>[];
  responses: Record<string, any>;
  operationId?: string;
  requestBody?: { content: Record<string, Media> };
};

describe('OpenAPI document', () => {
  let svc: TestService;
  let document: { openapi: string; paths: Record<string, Record<string, Operation>>; components: any };
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
  before(async () => {
    svc = await startTestService();
    const res = await svc.anonymous.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    document = res.body;
  });
  after(() => svc.close());

  it('passes the linter without errors or warnings', async () => {
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const errors = problems.filter((p) => p.severity === 'error');
    assert.deepEqual(
      errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
      'lint errors',
    );
    assert.equal(document.openapi, '3.1.0');
    // One warning stays, by the interface's own design: the SDK's paths /v2/gn/pix/:idEnvio/qrcode and
    // /v2/gn/pix/enviados/:e2eid have the same shape.
    const warnings = problems.filter(
      (p) => p.severity === 'warn' && !(p.ruleId === 'no-ambiguous-paths' && p.message.includes('/v2/gn/pix/')),
    );
    assert.deepEqual(
      warnings.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
      'lint warnings',
    );
  });

  it('declares each operation’s security from its family, with the scope it needs', () => {
    const byPath = (path: string, method: string) => document.paths[path][method];
    assert.deepEqual(byPath('/v2/cob', 'post').security, [{ clientCertificate: [], pixToken: ['cob.write'] }]);
    assert.deepEqual(byPath('/v1/charge', 'post').security, [{ billingToken: [] }]);
    assert.deepEqual(byPath('/oauth/token', 'post').security, [{ clientCredentials: [], clientCertificate: [] }]);
    assert.deepEqual(byPath('/qr/v2/{token}', 'get').security, [], 'payers fetch locations with no credentials');
    assert.equal(document.components.securitySchemes.clientCertificate.type, 'mutualTLS');
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      assert.ok(Array.isArray(op.security), `${method} ${path} declares its security`);
      assert.ok(op.operationId && !ids.has(op.operationId), `${method} ${path} has a unique operationId`);
      ids.add(op.operationId!);
    }
  });

  it('documents the family’s error body on every operation', () => {
    const errorOf = (path: string, method: string, status: string) => document.paths[path][method].responses[status];
    assert.ok(errorOf('/v2/cob', 'post', '400').content['application/json'].schema.properties.violacoes);
    assert.ok(errorOf('/v2/cob', 'post', '429'), 'rate-limited operations document 429');
    assert.ok(errorOf('/v2/gn/evp', 'post', '400').content['application/json'].schema.properties.nome);
    assert.ok(errorOf('/v1/charge', 'post', '401').content['application/json'].schema.properties.error_description);
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      assert.ok(
        statuses.some((s) => s.startsWith('4')),
        `${method} ${path} documents its errors (${statuses.join(', ')})`,
      );
    }
  });

  it('is reachable from a landing page at /, and /docs serves the reference', async () => {
    const landing = await svc.anonymous.request('GET', '/');
    assert.equal(landing.status, 200);
    assert.match(String(landing.headers['content-type']), /^text\/html/);
    for (const link of ['/docs', '/openapi.json', '/health']) assert.ok(landing.text.includes(`href="${link}"`), link);
    assert.ok(landing.text.includes(`${svc.data.dataDir}/credentials.json`), 'where the sandbox credentials are');
    const docs = await svc.anonymous.request('GET', '/docs/');
    assert.equal(docs.status, 200);
    assert.match(docs.text, /swagger/i);
  });

  it("describes operations in the interface's own words: request, answer, named errors", () => {
    const cob = document.paths['/v2/cob'].post as Operation & { description: string };
    assert.match(
      cob.description,
      /\*\*Immediate charges\*\* \(interface\)\. Request: .*Success: 201 charge \(txid assigned by service\)/,
    );
    assert.match(cob.description, /Scope: `cob\.write`/);
    const evp = document.paths['/v2/gn/evp'].post as Operation & { description: string };
    assert.match(evp.description, /Errors: key creation limit reached: `limite_criacao_chave_atingido`/);
  });

  it("tells how to present the client certificate, and in the sandbox try-it's examples name the demo account's key", async () => {
    const description = (document as any).info.description as string;
    assert.match(description, /\.p12` has an empty passphrase/);
    assert.match(description, /Manage certificates → Import/);
    const ui = await svc.anonymous.request('GET', '/docs/json');
    assert.equal(ui.status, 200);
    for (const served of [ui.text, JSON.stringify(document)]) {
      assert.ok(!served.includes(EXAMPLE_KEY), 'no stand-in key left');
      assert.ok(served.includes(svc.demo.chaves[0]), "the demo account's key");
    }
  });

  it('shows a request example and a 2xx response example on every operation, each valid by its schema', () => {
    // The server's own body validator: no coercion, unknown properties refused.
    const ajv = requestAjv('body');
    const invalid: string[] = [];
    // Realistic beyond the schema, which takes any 11 or 14 digits: documents carry valid check digits. Except
    // Bacen's own recurrence example (45164632481, in REQUEST_EXAMPLES), which the recurrence tests assert.
    const BACEN_REC_CPF = '45164632481';
    const documents = (value: unknown, name = ''): string[] => {
      if (Array.isArray(value)) return value.flatMap((item) => documents(item, name));
      if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, v]) => documents(v, key));
      const checked = ['cpf', 'cnpj', 'documento', 'taxIdNumber'].includes(name) && typeof value === 'string';
      return checked && value !== BACEN_REC_CPF && !(isValidCpf(value) || isValidCnpj(value))
        ? [`${name} ${value}`]
        : [];
    };
    const check = (where: string, media: Media) => {
      if (media.example === undefined) return void invalid.push(`${where}: no example`);
      const validate = ajv.compile(media.schema);
      if (!validate(media.example)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      for (const document of documents(media.example)) invalid.push(`${where}: invalid check digits, ${document}`);
    };
    let responses = 0;
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
        check(`${where} request ${type}`, media);
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^2\d\d$/.test(status) || !response.content) continue;
        responses++;
        for (const [type, media] of Object.entries(response.content as Record<string, Media>)) {
          check(`${where} ${status} ${type}`, media);
        }
      }
    }
    assert.deepEqual(invalid, []);
    // The document's '2XX' note stands where a route declares no success schema; a delete's answers no body.
    const undeclared = operations()
      .filter(({ method, op }) => op.responses['2XX'] && method !== 'delete')
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    // Successes with a body but no schema (pages, scripts, JWS, and routes that predate response schemas): no
    // example can be checked for them. A new route must declare its success schema, so the list may only shrink.
    assert.deepEqual(undeclared.sort(), UNDECLARED.sort());
    assert.ok(responses > 100, `${responses} response examples`);
  });

  it("compiles every JSON answer's serializer, which writes its example back unchanged", () => {
    // Serializers are compiled on a route's first answer (platform/validators.ts), not at start: a schema
    // fast-json-stringify refused, or one that dropped or bent a field, would show only on that first answer.
    const failures: string[] = [];
    let compiled = 0;
    for (const { path, method, op } of operations())
      for (const [status, response] of Object.entries(op.responses)) {
        const media = (response.content as Record<string, Media> | undefined)?.['application/json'];
        if (!media) continue;
        const where = `${method.toUpperCase()} ${path} ${status}`;
        try {
          const serialize = fastJson(media.schema as Parameters<typeof fastJson>[0]);
          compiled++;
          if (media.example !== undefined && /^2/.test(status))
            assert.deepEqual(JSON.parse(serialize(media.example)), media.example);
        } catch (error) {
          failures.push(`${where}: ${(error as Error).message.split('\n')[0]}`);
        }
      }
    assert.deepEqual(failures, []);
    assert.ok(compiled > 100, `${compiled} serializers`);
  });

  it('shows a request example that the server accepts as it is', async () => {
    const billing = billingApi(svc.anonymous, svc.demo);
    const token = await svc.demo.token();
    for (const [operation, example] of Object.entries(REQUEST_EXAMPLES)) {
      const [method, route] = operation.split(' ');
      const path = route.replace(/:(\w+)/g, '{$1}');
      const documented = (document.paths[path][method.toLowerCase()] as any).requestBody.content['application/json'];
      const shown = documented.example ?? documented.schema.examples?.[0];
      // In the sandbox, with the demo account's key: sent as it is shown.
      const body = JSON.parse(JSON.stringify(example).replaceAll(EXAMPLE_KEY, svc.demo.chaves[0]));
      assert.deepEqual(shown, body, `${operation} shows its example`);
      const url = route.replace(':txid', `exemplo${Date.now()}${Math.random().toString(36).slice(2, 12)}`);
      const res = route.startsWith('/v1/charge')
        ? await billing.call(method, url, body)
        : await svc.demo.http.request(method, url, { token, body });
      assert.ok(res.status >= 200 && res.status < 300, `${operation}: ${res.status} ${res.text}`);
    }
  });
});
