/**
 * The faults an integrator can ask the sandbox for (docs/faults.md): each kind's request body (TypeBox, so the
 * API, the console and the OpenAPI document share one definition), how a body becomes what the core is told
 * (`FaultParams`, platform/extensions.ts), and the bounds. Every fault can also be limited to its next
 * `vezes` occurrences or to `segundos` of the account's clock; without either it lasts until cleared.
 */
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { FaultKind, FaultParams } from '../../platform/faults.ts';
import { SANDBOX_REFUSALS } from '../../billing/charges/payment.ts';

export const FAULT_LIMITS = {
  /** `vezes`: a fault for the next N occurrences, N at most this. */
  timesMax: 1000,
  /** `segundos`: a fault for a period of the account's clock, at most 30 days. */
  durationMaxSeconds: 30 * 86_400,
  /** How long a key lookup that times out makes the send wait before it answers (a request holds no lock meanwhile). */
  keyLookupWaitMaxMs: 30_000,
  /** A refund's or a card refusal's reason. */
  reasonMaxChars: 140,
  /** How much later a slow receiving institution answers, at most 10 minutes of the account's clock. */
  slowInstitutionMaxMs: 600_000,
} as const;

const reason = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: FAULT_LIMITS.reasonMaxChars, description }));

/** What every kind takes beside its own fields. */
const Span = {
  vezes: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: FAULT_LIMITS.timesMax,
      description: 'Only the next N occurrences (default: every one until it is cleared or its period ends).',
    }),
  ),
  segundos: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: FAULT_LIMITS.durationMaxSeconds,
      description: "For this many seconds of the account's clock (default: until it is cleared).",
    }),
  ),
};

const body = <P extends TProperties>(properties: P) =>
  Type.Object({ ...properties, ...Span }, { additionalProperties: false });

/** A default reason for the issuer codes integrators test most; any other code gets a generic one. */
const ISSUER_REASONS: Record<string, string> = {
  '05': 'Transaction not authorized by the card issuer.',
  '14': 'Invalid card number.',
  '51': 'Insufficient funds or credit limit.',
  '54': 'Expired card.',
  '57': 'Transaction not permitted to the card holder.',
  '91': 'Card issuer unavailable, please try again later.',
};

/** Default reasons of the SPI's rejection codes integrators meet most (pacs.002 ExternalStatusReason). */
const SPI_REASONS: Record<string, string> = {
  AC03: 'Conta do recebedor inexistente ou inválida.',
  AC06: 'Conta do recebedor bloqueada.',
  AC07: 'Conta do recebedor encerrada.',
  AG03: 'Tipo de transação não suportado pela conta do recebedor.',
  AM02: 'Valor acima do permitido para a conta do recebedor.',
  BE01: 'O documento do recebedor não confere com o titular da conta.',
  DS04: 'Ordem recusada pela instituição do recebedor.',
  RR04: 'Recusado por motivo regulatório.',
};

/** The card refusal's reason: the sandbox's own codes (1, 2, 3) keep their reasons, which the checkout translates. */
function cardReason(codigo: string, motivo: string | undefined): string {
  if (motivo) return motivo;
  return (
    SANDBOX_REFUSALS[codigo] ??
    `${ISSUER_REASONS[codigo] ?? 'Transaction refused by the card issuer.'} (code ${codigo})`
  );
}

interface KindDefinition<K extends FaultKind> {
  /** One line, for the API summary, the CLI and the console. */
  summary: string;
  body: TObject;
  params(input: Record<string, unknown>): FaultParams[K];
}

export const FAULT_KINDS: { [K in FaultKind]: KindDefinition<K> } = {
  chave: {
    summary:
      'The key lookup of a send by key answers that the key does not exist (404 chave_nao_encontrada) or does not answer in time (504 consulta_chave_tempo_esgotado)',
    body: body({
      resultado: Type.Union([Type.Literal('nao_encontrada'), Type.Literal('tempo_esgotado')]),
      esperaMs: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: FAULT_LIMITS.keyLookupWaitMaxMs,
          description: 'tempo_esgotado: how long the send waits before it answers (default 0).',
        }),
      ),
    }),
    params: (input) => ({
      resultado: input.resultado as FaultParams['chave']['resultado'],
      esperaMs: (input.esperaMs as number | undefined) ?? 0,
    }),
  },
  webhook: {
    summary:
      "Delivery attempts to the account's webhooks fail as if its server had answered this status; they are retried on the usual schedule",
    body: body({ status: Type.Integer({ minimum: 400, maximum: 599 }) }),
    params: (input) => ({ status: input.status as number }),
  },
  devolucao: {
    summary: 'Refunds of received Pix (devoluções) end NAO_REALIZADO with this reason',
    body: body({ motivo: reason('The refund\'s "motivo" (default: refused by the payer\'s institution).') }),
    params: (input) => ({
      motivo:
        (input.motivo as string | undefined) ?? 'Devolução recusada pela instituição do pagador (falha simulada).',
    }),
  },
  cartao: {
    summary: 'Card payments are refused by the issuer with this code (the charge goes unpaid, refusal.reason names it)',
    body: body({
      codigo: Type.String({
        pattern: '^[0-9A-Z]{1,4}$',
        description: "The issuer's refusal code: 1, 2, 3 (the sandbox's own), 05, 51, …",
      }),
      motivo: reason('The refusal reason (default: by the code).'),
    }),
    params: (input) => ({
      codigo: input.codigo as string,
      motivo: cardReason(input.codigo as string, input.motivo as string | undefined),
    }),
  },
  envio: {
    summary:
      'Sends to other institutions are rejected by the receiving institution with this reason code: NAO_REALIZADO, motivo ending in (AC03)',
    body: body({
      codigo: Type.String({
        pattern: '^[A-Z]{2}[0-9]{2}$',
        description: 'An SPI rejection code: AC03, AC06, AM02, BE01, …',
      }),
      motivo: reason('The rejection reason (default: by the code).'),
    }),
    params: (input) => {
      const codigo = input.codigo as string;
      const motivo =
        (input.motivo as string | undefined) ?? SPI_REASONS[codigo] ?? 'Pix recusado pela instituição do recebedor.';
      return { codigo, motivo: `${motivo} (${codigo})` };
    },
  },
  instituicao: {
    summary:
      'The receiving (other) institution is slow (sends settle atrasoMs later) or down (sends end NAO_REALIZADO, AB03), for the period in segundos',
    body: body({
      estado: Type.Union([Type.Literal('lenta'), Type.Literal('fora')]),
      atrasoMs: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: FAULT_LIMITS.slowInstitutionMaxMs,
          description: "lenta: how much later it answers, on the account's clock (default 5000).",
        }),
      ),
    }),
    params: (input) => ({
      estado: input.estado as FaultParams['instituicao']['estado'],
      atrasoMs: (input.atrasoMs as number | undefined) ?? 5000,
    }),
  },
  limite: {
    summary: 'Every rate-limited request of the account answers 429 LimiteDeRequisicoes, as if its budget were spent',
    body: body({}),
    params: () => ({}),
  },
};

export const FAULT_KIND_NAMES = Object.keys(FAULT_KINDS) as FaultKind[];
