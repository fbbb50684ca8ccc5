/**
 * The Central Bank's API Pix 2.9.0 (docs/reference/bacen-pix-api-2.9.0.yaml) as a validator of what pixd
 * sends: each Bacen operation's declared statuses and, where it declares one, the schema of its body (a
 * payload's JWS is decoded first; a callback's request body too). The file is OpenAPI 3.0; its $refs are
 * resolved by @redocly/openapi-core and its schemas compiled by ajv.
 *
 * The file's own examples break a few of its rules. Where they do, pixd follows the example, and the rule is
 * relaxed here: each relaxation names the rule, says why, and carries the example error that justifies it
 * (`bacen-conformance.test.ts` checks that the unrelaxed file's examples do break it). They are listed in
 * docs/decisions.md too.
 */
import fs from 'node:fs';
import { bundleFromString, createConfig, parseYaml } from '@redocly/openapi-core';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { decodeJwt } from 'jose';

export const BACEN_FILE = new URL('../../docs/reference/bacen-pix-api-2.9.0.yaml', import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: the parsed OpenAPI document is walked as plain JSON.
type Json = Record<string, any>;

export interface Relaxation {
  /** The rule of the file, as a reader finds it. */
  rule: string;
  /** Why pixd does what the example does. */
  because: string;
  /**
   * Why it is relaxed: an error line (see `exampleErrors`) of the unrelaxed file's own examples that this
   * relaxation removes; or, where no example shows the field, the rule no value satisfies (its schema in the
   * resolved, unrelaxed file).
   */
  evidence: { brokenBy: RegExp } | { unsatisfiable: (resolved: Json) => Json };
  /** Edits the parsed (unresolved) document. */
  apply(doc: Json): void;
}

const schema = (doc: Json, name: string) => doc.components.schemas[name];

/** Every object in the document, each once (the parsed document has no cycles before resolution). */
function* walk(value: unknown): Generator<Json> {
  if (!value || typeof value !== 'object') return;
  yield value as Json;
  for (const child of Object.values(value)) yield* walk(child);
}

/** Drops `name` from a schema's `required`. */
const notRequired = (node: Json, name: string) => {
  node.required = (node.required as string[]).filter((r) => r !== name);
};

export const RELAXATIONS: Relaxation[] = [
  {
    rule: 'CPF patterns written as "/^\\d{11}$/" (PessoaFisica, PessoaFisicaRecorrencia, …)',
    because:
      'the slashes are a JavaScript regex literal, so no CPF matches the pattern as JSON Schema reads it; the ' +
      "examples' 11-digit CPFs show the meaning: ^\\d{11}$",
    evidence: { brokenBy: /\/devedor\/cpf must match pattern "\/\^\\d\{11\}\$\/"/ },
    apply(doc) {
      for (const node of walk(doc))
        if (typeof node.pattern === 'string' && /^\/.*\/$/.test(node.pattern)) node.pattern = node.pattern.slice(1, -1);
    },
  },
  {
    rule: 'DadosRecebedor: `required: [logradouro, cidade, uf, cep]` at the charge’s root',
    because:
      'the address belongs to `recebedor` (whose own allOf requires it, and pixd fills it); no example has ' +
      'an address at the root of a due charge',
    evidence: { brokenBy: /^PUT \/cobv\/\{txid\} 201 [^:]*: {2}must have required property 'logradouro'/ },
    apply(doc) {
      delete schema(doc, 'DadosRecebedor').required;
    },
  },
  {
    rule: 'DadosPagadorRec: `required: [ispbParticipante]` at the recurrence’s root',
    because: 'the ISPB belongs to `pagador` (where pixd writes it); the examples have none at the root',
    evidence: { brokenBy: /^GET \/rec\/\{idRec\} 200 [^:]*: {2}must have required property 'ispbParticipante'/ },
    apply(doc) {
      delete schema(doc, 'DadosPagadorRec').required;
    },
  },
  {
    rule: '`location` (CobGerada, CobVGerada, PayloadLocation, PayloadLocationCompleta, PayloadLocationRecGerada) `format: uri`',
    because:
      'a location is a URL without its scheme, as every example writes it ("pix.example.com/qr/v2/…") and as ' +
      'payers read it: the scheme is always https',
    evidence: { brokenBy: /\/location must match format "uri"/ },
    apply(doc) {
      for (const node of walk(doc))
        if (node.properties?.location?.format === 'uri') delete node.properties.location.format;
    },
  },
  {
    rule: 'CobGerada and CobVGerada: `loc` requires `txid`',
    because: "the charge's own txid; the examples' `loc` is {id, location, tipoCob, criacao}, as pixd's",
    evidence: { brokenBy: /^PUT \/cob\/\{txid\} 201 [^:]*: \/loc must have required property 'txid'/ },
    apply(doc) {
      for (const name of ['CobGerada', 'CobVGerada'])
        for (const part of schema(doc, name).allOf) if (part.properties?.loc) notRequired(part.properties.loc, 'txid');
    },
  },
  {
    rule: 'CobsConsultadas and CobsVConsultadas: each item requires `idCob`',
    because: 'no schema defines `idCob`, and no example item has one',
    evidence: { brokenBy: /^GET \/cob 200 [^:]*: \/cobs\/0 must have required property 'idCob'/ },
    apply(doc) {
      for (const name of ['CobsConsultadas', 'CobsVConsultadas'])
        for (const part of schema(doc, name).properties.cobs.items.allOf) if (part.required) notRequired(part, 'idCob');
    },
  },
  {
    rule: 'PixConsultados: `required: [parametros, cobs]`',
    because: 'the list of received Pix is `pix` (its own property, and the example’s), not `cobs`',
    evidence: { brokenBy: /^GET \/pix 200 [^:]*: {2}must have required property 'cobs'/ },
    apply(doc) {
      schema(doc, 'PixConsultados').required = ['parametros', 'pix'];
    },
  },
  {
    rule: 'WebhookCompleto: `required: [webhookUrl, cnpj, criacao]`',
    because:
      'a key’s webhook is {webhookUrl, chave, criacao} in the interface (Webhooks table) and in the examples; ' +
      'it has no `cnpj`',
    evidence: { brokenBy: /^GET \/webhook\/\{chave\} 200 [^:]*: {2}must have required property 'cnpj'/ },
    apply(doc) {
      notRequired(schema(doc, 'WebhookCompleto'), 'cnpj');
    },
  },
  {
    rule: 'PayloadLocationRecGerada: `required: [id, location, tipo, criacao]`',
    because: 'it defines no `tipo` (only the request has one), and no example location of a recurrence has it',
    evidence: { brokenBy: /^POST \/locrec 201 [^:]*: {2}must have required property 'tipo'/ },
    apply(doc) {
      notRequired(schema(doc, 'PayloadLocationRecGerada'), 'tipo');
    },
  },
  {
    rule: 'RecBase: `required: [idRec, calendario, vinculo, retentativa]`',
    because: 'it defines no `retentativa` (the policy is `politicaRetentativa`), and no example has one',
    evidence: { brokenBy: /^POST \/rec 201 [^:]*: {2}must have required property 'retentativa'/ },
    apply(doc) {
      notRequired(schema(doc, 'RecBase'), 'retentativa');
    },
  },
  {
    rule: 'SolicRecBase: `required: [calendario, pagador, idRec, destinatario]`; SolicRecCompleta: `required: [rec]`',
    because:
      'a request names the payer as `destinatario` and the recurrence as `recPayload`, as every example does; ' +
      '`pagador` and `rec` are not its properties',
    evidence: { brokenBy: /^POST \/solicrec 201 [^:]*: {2}must have required property 'rec'/ },
    apply(doc) {
      notRequired(schema(doc, 'SolicRecBase'), 'pagador');
      delete schema(doc, 'SolicRecCompleta').required;
    },
  },
  {
    rule: 'RecNotification: `required: ["idRec","status",atualizacao"]` (a stray quote)',
    because: 'it means `atualizacao`, which the example notification carries, as pixd’s do',
    evidence: { brokenBy: /callback rec request [^:]*: \/recs\/0 must have required property 'atualizacao"'/ },
    apply(doc) {
      const node = schema(doc, 'RecNotification');
      node.required = (node.required as string[]).map((r) => r.replace(/"$/, ''));
    },
  },
  {
    rule: '`encerramento` of a recurrence and of a recurring charge: `oneOf` [{cancelamento}, {rejeicao}]',
    because:
      'neither branch requires its property, so every object matches both and `oneOf` fails for any value, ' +
      "the examples' cancellations included; read as `anyOf`",
    evidence: { brokenBy: /\/encerramento must match exactly one schema in oneOf/ },
    apply(doc) {
      for (const node of walk(doc))
        if (node.properties?.encerramento?.oneOf) {
          node.properties.encerramento.anyOf = node.properties.encerramento.oneOf;
          delete node.properties.encerramento.oneOf;
        }
    },
  },
  {
    rule: 'PixAutomatico: `valor` is `type: string` and `anyOf` objects (PixValorOriginal, …)',
    because:
      'no value is both a string and an object; the string with two decimals is the Pix amount everywhere else ' +
      '(Pix.valor), so the anyOf (which belongs to Pix.componentesValor) is dropped',
    evidence: { unsatisfiable: (resolved) => schema(resolved, 'PixAutomatico').properties.valor },
    apply(doc) {
      delete schema(doc, 'PixAutomatico').properties.valor.anyOf;
    },
  },
];

/** The document with the relaxations applied, every $ref resolved. */
async function load(relaxations: Relaxation[]): Promise<Json> {
  const doc = parseYaml(fs.readFileSync(BACEN_FILE, 'utf8')) as Json;
  for (const relaxation of relaxations) relaxation.apply(doc);
  const bundled = await bundleFromString({
    source: JSON.stringify(doc),
    absoluteRef: BACEN_FILE.pathname,
    config: await createConfig({}),
    dereference: true,
  });
  return bundled.bundle.parsed as Json;
}

function newAjv(): Ajv {
  const ajv = addFormats.default(new Ajv({ strict: false, allErrors: true }));
  // OpenAPI's number formats say how wide, not what is valid.
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  return ajv;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

export interface BacenOperation {
  method: string;
  path: string;
  /** `GET /cob/{txid}`. */
  key: string;
  responses: Json;
  callbacks?: Json;
}

/** How pixd serves a Bacen path: the API under /v2, the payloads at the location's path under /qr/v2. */
function pixdPattern(path: string): RegExp {
  const payload: Record<string, string> = {
    '/{pixUrlAccessToken}': '/qr/v2/[^/]+',
    '/cobv/{pixUrlAccessToken}': '/qr/v2/cobv/[^/]+',
    '/rec/{recUrlAccessToken}': '/qr/v2/rec/[^/]+',
  };
  const route = payload[path] ?? `/v2${path.replace(/\{[^}]+\}/g, '[^/]+')}`;
  return new RegExp(`^${route}/?$`);
}

export interface Finding {
  operation: string;
  status: number;
  /** What is wrong, the same for every instance of it (array indexes read N). */
  problem: string;
  /** One instance: where and with what value. */
  example: string;
}

export class BacenSpec {
  readonly operations: BacenOperation[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv = newAjv();

  private constructor(readonly doc: Json) {
    this.operations = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({
        method: m.toUpperCase(),
        path,
        key: `${m.toUpperCase()} ${path}`,
        responses: item[m].responses,
        callbacks: item[m].callbacks,
      })),
    );
  }

  static async load(relaxations = RELAXATIONS): Promise<BacenSpec> {
    return new BacenSpec(await load(relaxations));
  }

  /** The Bacen operation a pixd request is (undefined: not a Bacen operation). */
  operationOf(method: string, url: string): BacenOperation | undefined {
    const path = new URL(url, 'https://pixd.invalid').pathname;
    // A literal path beats a template one: /v2/cobv/{pixUrlAccessToken} is /qr/v2/cobv, never /v2/cobv/{txid}.
    return this.operations.find((op) => op.method === method && pixdPattern(op.path).test(path));
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /**
   * What is wrong with a response to `op`: a success status Bacen does not declare, or a body that does not
   * validate against the schema Bacen declares for its status (errors Bacen does not list, such as 401 and
   * 429, against its problem schema). `allowedStatuses`: where the interface names another success status.
   */
  check(
    op: BacenOperation,
    response: { status: number; contentType: string; text: string },
    allowedStatuses: number[] = [],
  ): Finding[] {
    const declared = op.responses[String(response.status)];
    const finding = ({ problem, example }: { problem: string; example: string }): Finding => ({
      operation: op.key,
      status: response.status,
      problem,
      example,
    });
    if (!declared && response.status < 400 && !allowedStatuses.includes(response.status))
      return [
        finding({ problem: `status not declared (${Object.keys(op.responses).join(', ')})`, example: response.text }),
      ];
    const content = declared?.content ?? (response.status >= 400 ? this.problemContent() : undefined);
    if (!content) return [];
    const [mediaType, media] = Object.entries<Json>(content)[0];
    let body: unknown;
    try {
      body = mediaType === 'application/jose' ? decodeJwt(response.text) : JSON.parse(response.text);
    } catch (error) {
      return [finding({ problem: `body is not ${mediaType}`, example: (error as Error).message })];
    }
    return this.errors(`${op.key} ${response.status}`, media.schema, body).map(finding);
  }

  /** The body of a callback pixd sent for `op` (`name` as the file names it: listaPix, rec, cobr). */
  checkCallback(op: BacenOperation, name: string, body: unknown): Finding[] {
    const callback = Object.values<Json>(op.callbacks?.[name] ?? {})[0];
    if (!callback) return [{ operation: op.key, status: 0, problem: `no callback ${name}`, example: '' }];
    const media = Object.values<Json>(callback.post.requestBody.content)[0];
    return this.errors(`${op.key} callback ${name}`, media.schema, body).map((error) => ({
      operation: `${op.key} callback ${name}`,
      status: 0,
      ...error,
    }));
  }

  private problemContent(): Json {
    return { 'application/problem+json': { schema: this.doc.components.schemas.Problema } };
  }

  private errors(key: string, schema: Json, body: unknown): { problem: string; example: string }[] {
    const validate = this.validator(key, schema);
    return validate(body) ? [] : describeErrors(validate.errors ?? [], body);
  }

  /**
   * Every error of the file's own examples against their schemas, one line each: responses
   * (`PUT /cobv/{txid} 201 retorno1: /devedor/cpf must match pattern "…"`), request bodies
   * (`… request exemplo1: …`) and callbacks (`PUT /webhookrec callback rec request example: …`).
   */
  exampleErrors(): string[] {
    const lines: string[] = [];
    const check = (where: string, content: Json | undefined) => {
      for (const media of Object.values<Json>(content ?? {})) {
        if (!media.schema) continue;
        const examples: [string, unknown][] = [
          ...Object.entries<Json>(media.examples ?? {}).map(([name, e]): [string, unknown] => [name, e.value]),
          ...(media.example === undefined ? [] : [['example', media.example] as [string, unknown]]),
        ];
        const validate = this.validator(where, media.schema);
        for (const [name, value] of examples)
          if (!validate(value))
            for (const e of validate.errors ?? [])
              lines.push(`${where} ${name}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
      }
    };
    for (const op of this.operations) {
      for (const [status, response] of Object.entries<Json>(op.responses))
        check(`${op.key} ${status}`, response.content);
      for (const [name, callback] of Object.entries<Json>(op.callbacks ?? {}))
        for (const item of Object.values<Json>(callback))
          check(`${op.key} callback ${name} request`, item.post?.requestBody?.content);
    }
    return lines;
  }

  /** Whether `value` satisfies `schema` (a schema of this document). */
  accepts(schema: Json, value: unknown): boolean {
    return this.ajv.validate(schema, value) as boolean;
  }
}

/** Each error as the rule broken and one instance of it, with the offending value: what pixd sent. */
function describeErrors(errors: ErrorObject[], body: unknown): { problem: string; example: string }[] {
  const at = (pointer: string) =>
    pointer
      .split('/')
      .slice(1)
      .reduce<unknown>(
        (value, key) => (value as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        body,
      );
  return errors.map((e) => ({
    problem: `${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/N') || '/'} ${e.message} ${JSON.stringify(e.params)}`,
    example: `${e.instancePath || '/'} = ${(JSON.stringify(at(e.instancePath)) ?? 'undefined').slice(0, 300)}`,
  }));
}
