/**
 * A generated corpus of bad input against every operation in /openapi.json: mutated path parameters,
 * queries and bodies (NUL, lone surrogates, huge and odd numbers, wrong types, deep nesting, long strings,
 * unknown properties, invalid JSON, wrong content types). Whatever the bytes, the answer is never a 5xx,
 * and a refusal is a JSON body in one of the interface's error formats (the pages people open answer an
 * unknown token with an HTML 404 page instead).
 *
 * Fixed seed and a bounded count in CI (PIXD_FUZZ_RUNS per operation, 4 by default); `npm run fuzz` runs
 * ten times as many.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, type TestService } from '../helpers/service.ts';
import { formatForPath } from '../../src/platform/errors.ts';

const RUNS_PER_OPERATION = Number(process.env.PIXD_FUZZ_RUNS ?? 4);
const SEED = Number(process.env.PIXD_FUZZ_SEED ?? 20261124);
/** Paths stay under Node's header limit (a longer one is refused by Node itself, before any route). */
const PATH_SEGMENT_MAX_CHARS = 2_000;

/** The interface's error bodies: problem, named, wrapper, billing, oauth. */
function isErrorBody(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return (
    (typeof b.type === 'string' && typeof b.title === 'string' && typeof b.status === 'number') ||
    (typeof b.nome === 'string' && typeof b.mensagem === 'string') ||
    (typeof b.correlationId === 'string' && b.error !== undefined) ||
    (b.code !== undefined && typeof b.error === 'string' && b.error_description !== undefined) ||
    (typeof b.error === 'string' && typeof b.error_description === 'string')
  );
}

const nasty = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\uDBFF\uDBFF', '', ' ', '%', '../..', '"\'<>'),
  fc.constantFrom('99999999999999999999', '-1', '1e308', 'NaN', 'Infinity', '0x10', '1.5', '-0'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.nat({ max: PATH_SEGMENT_MAX_CHARS }).map((n) => 'a'.repeat(n)),
);

const jsonValue = fc.oneof(
  nasty,
  fc.constantFrom(1e308, -1e308, 2 ** 63, -(2 ** 63), 1e20, 0.1, -1, 0, true, false, null),
  fc.anything({ maxDepth: 4, withNullPrototype: false }),
  fc.nat({ max: 300 }).map((depth) => {
    let nested: unknown = 'fundo';
    for (let i = 0; i < depth; i++) nested = { a: [nested] };
    return nested;
  }),
);

type Body = { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; contentType: string };

interface Operation {
  method: string;
  path: string;
  /** A page people open (checkout, QR page): an unknown token is a friendly HTML 404 (docs/architecture.md). */
  htmlPage: boolean;
  params: string[];
  query: string[];
  bodyProperties: string[] | undefined;
}

function operations(doc: any): Operation[] {
  const list: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters: any[] = op.parameters ?? [];
      const schema = op.requestBody?.content?.['application/json']?.schema;
      list.push({
        method: method.toUpperCase(),
        path,
        htmlPage: Object.values<any>(op.responses ?? {}).some((r) => r.content?.['text/html']),
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProperties: op.requestBody ? Object.keys(schema?.properties ?? {}) : undefined,
      });
    }
  }
  return list;
}

function bodyFor(op: Operation): fc.Arbitrary<Body | undefined> {
  if (!op.bodyProperties) return fc.constant(undefined);
  const keys = op.bodyProperties.length ? fc.constantFrom(...op.bodyProperties) : fc.string({ maxLength: 10 });
  const mutatedObject = fc
    .dictionary(fc.oneof(keys, nasty), jsonValue, { maxKeys: 6 })
    .map((value): Body => ({ kind: 'json', value }));
  return fc.oneof(
    mutatedObject,
    jsonValue.map((value): Body => ({ kind: 'json', value })),
    fc.constantFrom<Body>(
      { kind: 'raw', text: '{"a":', contentType: 'application/json' },
      { kind: 'raw', text: '[1,2', contentType: 'application/json' },
      { kind: 'raw', text: '\u0000', contentType: 'application/json' },
      { kind: 'raw', text: 'a=b&c', contentType: 'text/plain' },
      { kind: 'raw', text: '<xml/>', contentType: 'application/xml' },
      { kind: 'raw', text: 'x=%00&y=%E0%A4%A', contentType: 'application/x-www-form-urlencoded' },
    ),
    fc.nat({ max: 1_100_000 }).map((n): Body => ({ kind: 'json', value: { texto: 'a'.repeat(n) } })),
  );
}

describe('faults: generated bad input over every operation in /openapi.json', () => {
  let svc: TestService;
  let pixToken: string;
  let billingToken: string;

  before(async () => {
    svc = await startTestService();
    pixToken = await svc.demo.token();
    const authorize = await svc.demo.http.request('POST', '/v1/authorize', {
      body: { grant_type: 'client_credentials' },
      headers: {
        authorization: 'Basic ' + Buffer.from(`${svc.demo.clientId}:${svc.demo.clientSecret}`).toString('base64'),
      },
    });
    billingToken = authorize.body.access_token;
  });
  after(() => svc.close());

  it('never answers 5xx, and refuses in an interface error format', async () => {
    const doc = (await svc.anonymous.request('GET', '/openapi.json')).body;
    const ops = operations(doc);
    assert.ok(ops.length > 50, `the document lists the operations (${ops.length})`);
    const failures: string[] = [];
    for (const op of ops) {
      const token = formatForPath(op.path) === 'billing' ? billingToken : pixToken;
      await fc
        .assert(
          fc.asyncProperty(
            fc.array(nasty, { minLength: op.params.length, maxLength: op.params.length }),
            fc.dictionary(fc.oneof(op.query.length ? fc.constantFrom(...op.query) : nasty, nasty), nasty, {
              maxKeys: 4,
            }),
            bodyFor(op),
            async (params, query, body) => {
              let path = op.path;
              op.params.forEach((name, i) => {
                path = path.replace(`{${name}}`, encodeURIComponent(params[i]).slice(0, PATH_SEGMENT_MAX_CHARS * 3));
              });
              const search = new URLSearchParams(query).toString();
              const url = search ? `${path}?${search}` : path;
              const res = await svc.demo.http.request(op.method, url, {
                token,
                ...(body?.kind === 'json' && { body: body.value }),
                ...(body?.kind === 'raw' && { rawBody: body.text, headers: { 'content-type': body.contentType } }),
              });
              const htmlNotFound =
                op.htmlPage && res.status === 404 && /^text\/html/.test(String(res.headers['content-type']));
              if (res.status >= 500 || (res.status >= 400 && !htmlNotFound && !isErrorBody(res.body))) {
                failures.push(`${op.method} ${url.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`);
                return false;
              }
              return true;
            },
          ),
          { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
        )
        .catch(() => undefined); // collected in `failures`, reported all together below
    }
    assert.deepEqual(failures, []);
  });
});
