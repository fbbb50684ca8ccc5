/**
 * The error bodies of the interface, produced from one error type. Each route family declares its format
 * (see `ErrorFormat`); a route handler or service only ever throws `ApiError`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from './db/errors.ts';
import { DeadlineExceeded } from './db/deadline.ts';
import { maskDocumentNumber } from './documents.ts';
import { LIMITS } from './limits.ts';
import { redactedText } from './log-redaction.ts';
import { errorTitle, type ErrorName, type ErrorNameWithStatus, type StatusOf } from './error-catalogue.ts';

export type { ErrorName, ErrorNameWithStatus, GroupErrorName, StatusOf } from './error-catalogue.ts';

/**
 * problem: Bacen problem object (/v2 Pix routes). named: {nome, mensagem} (/v2/gn helpers). described: the named
 * body with the message also as `descricao` (bill payments: the SDK reads `mensagem` on some of the family's calls
 * and `descricao` on others). wrapper: {responseTime, correlationId, error} (/v1 Pix routes). billing: {code, error, error_description}.
 * oauth: RFC 6749 {error, error_description} (token endpoints).
 */
export type ErrorFormat = 'problem' | 'named' | 'described' | 'wrapper' | 'billing' | 'oauth';

export interface Violation {
  property: string;
  reason: string;
  value?: unknown;
}

class InterfaceError extends Error {
  constructor(
    readonly statusCode: number,
    /** PascalCase problem name (`CobOperacaoInvalida`) or snake_case error name (`txid_duplicado`). */
    readonly errorName: ErrorName,
    readonly detail: string,
    readonly violations: Violation[] = [],
    /** For 429 and 503: when to come back (the Retry-After header); one second unless said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

/**
 * A refusal (or failure) in the interface's terms. Name and status come from the catalogue
 * (`error-catalogue.ts`): `new ApiError(404, 'CobNaoEncontrado', detail)` compiles only if that name exists and
 * is answered with that status.
 */
export type ApiError = InterfaceError;
export const ApiError: new <N extends ErrorName>(
  statusCode: StatusOf<N>,
  errorName: N,
  detail: string,
  violations?: Violation[],
  retryAfterSeconds?: number,
) => ApiError = InterfaceError;

export const PROBLEM_TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error';

export const notFound = (
  detail = 'Recurso solicitado não foi encontrado.',
  name: ErrorNameWithStatus<404> = 'NaoEncontrado',
) => new ApiError(404, name, detail);

export const invalid = (name: ErrorNameWithStatus<400>, detail: string, violations: Violation[] = []) =>
  new ApiError(400, name, detail, violations);

/** The Bacen problem object of an error; also stored as the `problema` of a refused batch item. */
export function problemObject(error: ApiError) {
  return {
    type: `${PROBLEM_TYPE_BASE}/${error.errorName}`,
    title: errorTitle(error.errorName),
    status: error.statusCode,
    detail: error.detail,
    ...(error.violations.length && {
      violacoes: error.violations.map((v) => ({
        razao: v.reason,
        propriedade: v.property,
        ...(v.value !== undefined && { valor: String(shownValue(v)) }),
      })),
    }),
  };
}

export function render(format: ErrorFormat, error: ApiError, request: FastifyRequest, reply: FastifyReply): unknown {
  switch (format) {
    case 'problem':
      return problemObject(error);
    case 'named':
      return namedBody(error);
    case 'described':
      return { ...namedBody(error), descricao: error.detail };
    case 'wrapper':
      return {
        responseTime: responseTimeMs(reply),
        correlationId: correlationId(request),
        error: {
          title: error.errorName,
          status: error.statusCode,
          detail: error.detail,
          ...(error.violations.length && {
            violations: error.violations.map((v) => ({
              property: v.property,
              reason: v.reason,
              value: shownValue(v) ?? null,
            })),
          }),
        },
      };
    case 'billing':
      return { code: error.statusCode, error: error.errorName, error_description: describe(error) };
    case 'oauth':
      return { error: error.errorName, error_description: describe(error) };
  }
}

function namedBody(error: ApiError) {
  return {
    nome: error.errorName,
    mensagem: error.detail,
    ...(error.violations.length && {
      violacoes: error.violations.map((v) => ({ razao: v.reason, propriedade: v.property })),
    }),
  };
}

/** Properties whose value is a person's document: echoed masked. */
const DOCUMENT_PROPERTY = /(^|\.)(cpf|cnpj|documento|taxIdNumber)$/i;

/**
 * The offending value as an error shows it: a document masked, text (and an object or array, as its JSON)
 * cut at a bound, so an error never echoes a document in clear or a body's worth of input.
 */
function shownValue(v: Violation): unknown {
  const { value } = v;
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (DOCUMENT_PROPERTY.test(v.property)) return maskDocumentNumber(text);
  const max = LIMITS.violationValueShownMaxChars;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function describe(error: ApiError): string {
  return error.violations.length
    ? `${error.detail} ${error.violations.map((v) => `${v.property}: ${v.reason}`).join('; ')}`
    : error.detail;
}

export function correlationId(request: FastifyRequest): string {
  const header = request.headers['x-correlation-id'];
  return typeof header === 'string' && header.length <= 100 ? header : request.id;
}

export function responseTimeMs(reply: FastifyReply): number {
  return Math.round(reply.elapsedTime);
}

/** Which error a failed schema check becomes, and under what root the properties are named. */
export interface InvalidRequestConfig {
  /** e.g. `CobOperacaoInvalida`; defaults to the family's generic name. */
  invalidRequest?: ErrorNameWithStatus<400>;
  /** e.g. `cob`, so `/valor/original` reads `cob.valor.original`. */
  propertyRoot?: string;
}

export const GENERIC_INVALID = {
  problem: 'RequisicaoInvalida',
  named: 'json_invalido',
  described: 'json_invalido',
  wrapper: 'Validation Error',
  billing: 'validation_error',
  oauth: 'invalid_request',
} as const satisfies Record<ErrorFormat, ErrorName>;

/**
 * Thrown for a request that reaches a node already draining (shutting down): answered 503 in its family's
 * format, so the caller (or its load balancer) tries another node.
 */
export class NodeDraining extends Error {
  constructor() {
    super('node draining');
  }
}

/** Turns any thrown value into an ApiError: schema failures name the property, unknown failures are 500s. */
export function toApiError(error: unknown, format: ErrorFormat, config: InvalidRequestConfig): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof NodeDraining || error instanceof DeadlineExceeded || isDatabaseUnavailable(error))
    return new ApiError(
      503,
      format === 'problem' ? 'ServicoIndisponivel' : 'servico_indisponivel',
      error instanceof NodeDraining
        ? 'Este nó está sendo desligado; tente novamente.'
        : error instanceof DeadlineExceeded
          ? 'A requisição excedeu o prazo do servidor e nada foi gravado; tente novamente.'
          : 'Serviço temporariamente indisponível; tente novamente.',
    );
  const fastifyError = error as FastifyError & { validationContext?: string };
  const invalidName = config.invalidRequest ?? GENERIC_INVALID[format];
  if (fastifyError.validation) {
    const root = fastifyError.validationContext === 'body' ? config.propertyRoot : fastifyError.validationContext;
    const violations = fastifyError.validation.map((v) => schemaViolation(v, root));
    // A {nome, mensagem} body is all some clients read (the SDK's Open Finance errors): the message names the field.
    const detail =
      (format === 'named' || format === 'described') && violations.length
        ? `A requisição não respeita o schema: ${violations[0].property}: ${violations[0].reason}`
        : 'A requisição não respeita o schema.';
    return invalid(invalidName, detail, violations);
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const reason = fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'JSON malformado.' : fastifyError.message;
    const name = status === 400 ? invalidName : status === 404 ? 'NaoEncontrado' : GENERIC_INVALID[format];
    return new ApiError(
      status,
      name,
      reason,
      status === 400 ? [{ property: config.propertyRoot ?? 'body', reason }] : [],
    );
  }
  return new ApiError(
    500,
    format === 'problem' ? 'ErroInternoDoServidor' : 'erro_aplicacao',
    'Erro interno do servidor.',
  );
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The value that failed (validators run with `verbose`); for `additionalProperties`, its parent object. */
  data?: unknown;
}

function schemaViolation(v: AjvError, root: string | undefined): Violation {
  const segments = v.instancePath.split('/').filter(Boolean);
  if (v.keyword === 'additionalProperties') segments.push(String(v.params.additionalProperty));
  if (v.keyword === 'required') segments.push(String(v.params.missingProperty));
  const property = [root, ...segments].filter(Boolean).join('.') || (root ?? 'body');
  const reason =
    v.keyword === 'additionalProperties'
      ? 'propriedade não permitida.'
      : v.keyword === 'required'
        ? 'propriedade obrigatória.'
        : `não respeita o schema: ${v.message ?? v.keyword}.`;
  // A missing property has no value; an unknown one's is under its name in the object that failed.
  const value =
    v.keyword === 'required'
      ? undefined
      : v.keyword === 'additionalProperties'
        ? (v.data as Record<string, unknown> | undefined)?.[String(v.params.additionalProperty)]
        : v.data;
  return { property, reason, ...(value !== undefined && { value }) };
}

/** Why a request was refused (4xx), for its one log line (observability.ts): the error's name and message. */
export interface Refusal {
  error: string;
  reason: string;
}

const refusals = new WeakMap<FastifyReply, Refusal>();

export const refusalOf = (reply: FastifyReply): Refusal | undefined => refusals.get(reply);

function refusal(apiError: ApiError): Refusal {
  const violations = apiError.violations.map((v) => `${v.property}: ${v.reason}`).join('; ');
  return {
    error: apiError.errorName,
    reason: redactedText(violations ? `${apiError.detail} (${violations})` : apiError.detail),
  };
}

export function errorHandler(format: ErrorFormat) {
  return function handle(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const config = (request.routeOptions?.config ?? {}) as InvalidRequestConfig;
    const apiError = toApiError(error, format, config);
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    else refusals.set(reply, refusal(apiError));
    // Both ask the caller to come back: the rate window is a second, and so is a batch backlog's progress.
    if ((apiError.statusCode === 429 || apiError.statusCode === 503) && !reply.hasHeader('retry-after'))
      reply.header('retry-after', String(apiError.retryAfterSeconds ?? 1));
    const type = format === 'problem' ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8';
    return reply
      .status(apiError.statusCode)
      .type(type)
      .send(render(format, apiError, request, reply));
  };
}

export const newCorrelationId = () => randomUUID();

/**
 * The family a path belongs to, for errors raised before any route matched (a URL that does not decode).
 * Mirrors the families registered in families.ts.
 */
export function formatForPath(url: string): ErrorFormat {
  if (url.startsWith('/oauth') || url.startsWith('/v1/oauth')) return 'oauth';
  if (/^\/v1\/(codBarras|resumo|\d+)(\/|\?|$)/.test(url)) return 'described';
  if (/^\/v1\/(config|participantes|pagamentos-automaticos)(\/|\?|$)/.test(url)) return 'named';
  if (/^\/(v1\/(charge|card|installments|notification|pubkey|authorize)|checkout)/.test(url)) return 'billing';
  if (url.startsWith('/v1/') || url.startsWith('/dict/')) return 'wrapper';
  return 'problem';
}

/** Fastify's `frameworkErrors`: a URL it cannot decode is a 400 in the path's family, without echoing it. */
export function renderFrameworkError(_error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const format = formatForPath(request.url);
  const apiError = new ApiError(400, GENERIC_INVALID[format], 'Caminho da requisição com codificação inválida.');
  return errorHandler(format).call(null, apiError, request, reply);
}
