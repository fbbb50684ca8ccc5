/**
 * What the OpenAPI document says beyond the route schemas, derived from the route's family so it cannot
 * drift from what the server does: how a caller authenticates (client certificate, which token, which
 * scope) and the error bodies the family answers. Applied only to the document (@fastify/swagger's
 * `transform`): error schemas attached to the routes themselves would become serializers and could drop
 * fields from real error bodies.
 */
import fs from 'node:fs';
import { Type, type TSchema } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import type { ErrorFormat } from './errors.ts';
import type { Audience } from './auth/tokens.ts';
import { REQUEST_EXAMPLES, exampleOf, type ExampleOperation } from './openapi-examples.ts';

/** Set on every route by its family (families.ts): what the document derives security and errors from. */
export interface RouteFamily {
  format: ErrorFormat;
  audience?: Audience;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    family?: RouteFamily;
  }
}

const Violations = (item: TSchema) => Type.Optional(Type.Array(item));

/** Each family's error body, as src/platform/errors.ts renders it. */
const ERROR_BODIES: Record<ErrorFormat, TSchema> = {
  problem: Type.Object(
    {
      type: Type.String({ examples: ['https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida'] }),
      title: Type.String({ examples: ['Cobrança inválida.'] }),
      status: Type.Integer({ examples: [400] }),
      detail: Type.String({
        examples: ['A requisição que busca alterar ou criar uma cobrança não respeita o schema.'],
      }),
      correlationId: Type.Optional(Type.String()),
      violacoes: Violations(
        Type.Object({ razao: Type.String(), propriedade: Type.String(), valor: Type.Optional(Type.String()) }),
      ),
    },
    { title: 'Problema (Bacen)' },
  ),
  named: Type.Object(
    {
      nome: Type.String({ examples: ['valor_invalido'] }),
      mensagem: Type.String(),
      violacoes: Violations(Type.Object({ razao: Type.String(), propriedade: Type.String() })),
    },
    { title: 'Erro {nome, mensagem}' },
  ),
  described: Type.Object(
    {
      nome: Type.String({ examples: ['codigo_barras_invalido'] }),
      mensagem: Type.String(),
      descricao: Type.String({ description: 'A mesma mensagem: o SDK a lê em parte das chamadas desta família.' }),
      violacoes: Violations(Type.Object({ razao: Type.String(), propriedade: Type.String() })),
    },
    { title: 'Erro {nome, mensagem, descricao}' },
  ),
  wrapper: Type.Object(
    {
      responseTime: Type.String(),
      correlationId: Type.String(),
      error: Type.Object({
        title: Type.String(),
        status: Type.Integer(),
        detail: Type.String(),
        violations: Violations(Type.Object({ property: Type.String(), reason: Type.String() })),
      }),
    },
    { title: 'Erro (API v1)' },
  ),
  billing: Type.Object(
    {
      code: Type.Integer({ examples: [400] }),
      error: Type.String({ examples: ['validation_error'] }),
      error_description: Type.String(),
    },
    { title: 'Erro (cobranças)' },
  ),
  oauth: Type.Object(
    { error: Type.String({ examples: ['invalid_client'] }), error_description: Type.String() },
    { title: 'Erro OAuth 2.0 (RFC 6749)' },
  ),
};

export const SECURITY_SCHEMES = {
  clientCertificate: {
    type: 'mutualTLS',
    description:
      "The account's client certificate (credentials.json: certificate.pem and certificate.key, or the .p12). " +
      'Browsers present one only when it is installed in the browser or the system; curl and the SDKs take it as files.',
  },
  pixToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A Pix access token from POST /oauth/token (HTTP Basic with client id and secret, over the same client ' +
      'certificate); bound to that certificate. Paste the access_token to try calls here.',
  },
  billingToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A billing access token from POST /v1/authorize (HTTP Basic with client id and secret).',
  },
  clientCredentials: {
    type: 'http',
    scheme: 'basic',
    description: 'client id and client secret of the application (credentials.json), for the token endpoints.',
  },
} as const;

const SECURITY: Record<string, Record<string, string[]>[]> = {
  pix: [{ clientCertificate: [], pixToken: [] }],
  billing: [{ billingToken: [] }],
  oauth: [{ clientCredentials: [], clientCertificate: [] }],
  public: [],
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the body names each property that is wrong.',
  401: 'No valid token, or a token not bound to the client certificate presented.',
  403: 'The token lacks the scope this operation needs.',
  404: 'Not found, or not the caller’s.',
  429: 'Over the rate limit; Retry-After says when to come back.',
  503: 'The node is draining, its database is out of reach, or the request ran past its deadline and was rolled back; Retry-After says when to come back.',
};

type Schema = Record<string, unknown> & { response?: Record<string, unknown>; body?: unknown; params?: unknown };

interface InterfaceEndpoint {
  section: string;
  request: string;
  success: string;
  errors: string[];
}

/** The interface specification's row of each endpoint, extracted by scripts/interface-endpoints.ts. */
const INTERFACE_ENDPOINTS = JSON.parse(
  fs.readFileSync(new URL('./interface-endpoints.json', import.meta.url), 'utf8'),
) as Record<string, InterfaceEndpoint>;

/** What the interface says of the operation, for its description: the request, the answer, the named errors. */
function fromInterface(method: string, url: string): string | undefined {
  const row = INTERFACE_ENDPOINTS[`${method} ${url.replace(/\/$/, '')}`];
  if (!row) return undefined;
  return [
    `**${row.section}** (interface). Request: ${row.request}. Success: ${row.success}.`,
    ...(row.errors.length ? [`Errors: ${row.errors.join('; ')}.`] : []),
  ].join(' ');
}

/**
 * A route that declares no success body (a delete, a page, a script, a stream) still succeeds: the document
 * says so, with the statuses its handler answers described in words.
 */
function successOf(method: string, response: Schema['response']) {
  if (Object.keys(response ?? {}).some((status) => status.startsWith('2'))) return {};
  const removed = method === 'DELETE';
  return { '2XX': { description: removed ? 'Removed (200 or 204, no body).' : 'Success (see the description).' } };
}

/** `POST /v2/cob/:txid` → `postV2CobTxid`: stable, unique per method and path, readable in generated clients. */
function operationId(method: string, url: string): string {
  const words = url
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1));
  return `${method.toLowerCase()}${words.join('')}`;
}

/** @fastify/swagger's `transform`: the route's own schema, plus its family's security and error responses. */
export function documentRoute({ schema, url, route }: { schema: unknown; url: string; route: RouteOptions }) {
  const family = route.config?.family;
  if (!family || !schema) return { schema: schema as Schema, url };
  // `route.method` may list several methods (GET with HEAD): the first one names the operation.
  const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
  const own = schema as Schema;
  const kind = family.format === 'oauth' ? 'oauth' : (family.audience ?? 'public');
  const scope = route.config?.scope;
  const security = SECURITY[kind].map((requirement) =>
    scope && requirement.pixToken ? { ...requirement, pixToken: [scope] } : requirement,
  );
  const statuses = [
    400,
    ...(kind === 'public' ? [] : [401]),
    ...(scope ? [403] : []),
    ...(own.params ? [404] : []),
    ...(route.config?.rateLimited ? [429] : []),
    503,
  ];
  const errors = Object.fromEntries(
    statuses
      .filter((status) => !own.response?.[status])
      .map((status) => [status, { description: ERROR_DESCRIPTIONS[status], ...ERROR_BODIES[family.format] }]),
  );
  const description = [
    own.description,
    fromInterface(method, url),
    scope && `Scope: \`${scope}\`.`,
    route.config?.rateLimited && 'Rate limited per application (see the interface limits).',
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    schema: {
      ...own,
      ...(own.body ? { body: withExample(own.body, REQUEST_EXAMPLES[`${method} ${url}` as ExampleOperation]) } : {}),
      operationId: own.operationId ?? operationId(method, url),
      ...(description && { description }),
      security,
      response: { ...successOf(method, own.response), ...successExamples(own.response), ...errors },
    },
    url,
  };
}

/** A copy of the schema carrying its example (the route's own schema validates and serializes: left alone). */
function withExample(schema: unknown, written?: unknown) {
  const own = schema as Record<string, unknown>;
  return { ...own, examples: [written ?? exampleOf(own)] };
}

/** A schema of a body, not only a description of a response without one. */
const describesBody = (schema: unknown) =>
  ['type', 'anyOf', 'oneOf', 'allOf'].some((keyword) => keyword in (schema as object));

/**
 * Every declared 2xx body, with an example @fastify/swagger shows as the response's `example`; a body of
 * another media type than JSON (the NDJSON stream of POST /sandbox/listen) is declared under `content`.
 */
function successExamples(response: Schema['response']) {
  const withExamples = (schema: unknown) => {
    if (describesBody(schema)) return withExample(schema);
    const { content, ...rest } = schema as { content?: Record<string, { schema: unknown }> };
    if (!content) return schema;
    const media = Object.entries(content).map(([type, { schema: body }]) => [
      type,
      { schema: body, example: exampleOf(body as Record<string, unknown>) },
    ]);
    return { ...rest, content: Object.fromEntries(media) };
  };
  return Object.fromEntries(
    Object.entries(response ?? {}).map(([status, schema]) => [
      status,
      status.startsWith('2') ? withExamples(schema) : schema,
    ]),
  );
}
