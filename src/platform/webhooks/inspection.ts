/**
 * Recent webhook deliveries of one account with every attempt, for integrators (sandbox: GET
 * /sandbox/webhooks/entregas). A delivery is its outbox job; its attempts are in webhook_attempts.
 */
import type { Sql } from '../db/database.ts';
import { attemptsOf, type AttemptRow } from './attempts.ts';

export type DeliveryState = 'pendente' | 'entregue' | 'falhou' | 'nao_enviado';

interface DeliveryRow {
  id: number;
  topic: string;
  payload: Record<string, unknown>;
  attempts: number;
  available_at: Date;
  done_at: Date | null;
  last_error: string | null;
  created_at: Date;
}

function stateOf(row: DeliveryRow, attempts: AttemptRow[]): DeliveryState {
  if (!row.done_at) return 'pendente';
  if (row.last_error?.startsWith('gave up')) return 'falhou';
  const last = attempts.at(-1);
  return last && last.status_code !== null && last.status_code >= 200 && last.status_code < 300
    ? 'entregue'
    : 'nao_enviado';
}

/** What the delivery is about, for a person scanning the list: the Pix, the recurrence, the account. */
function subjectOf(payload: Record<string, unknown>): string | undefined {
  const pix = payload.pix as { endToEndId?: string }[] | undefined;
  if (pix?.[0]?.endToEndId) return pix[0].endToEndId;
  const body = payload.body as Record<string, unknown> | undefined;
  const item = (body?.recs ?? body?.cobsr) as { idRec?: string; txid?: string }[] | undefined;
  if (item?.[0]) return item[0].txid ?? item[0].idRec;
  const conta = body?.contaSimplificada as { identificador?: string } | undefined;
  if (conta?.identificador) return conta.identificador;
  // Open Finance callbacks: the payment, else the enrolment.
  return (body?.endToEndId ?? body?.identificadorAdesao) as string | undefined;
}

/** Narrows the list (the console): one charge's deliveries (a payload field's value), or those created in a period. */
export interface DeliveryFilter {
  payload?: { field: 'txid' | 'chargeId'; value: string };
  /** Only the jobs of this ordering key: one subject's account events (a recurrence, an automatic charge). */
  orderingKey?: string;
  createdFrom?: Date;
  createdTo?: Date;
  /** Also return each delivery's event content (`evento`): what its body is built from. */
  withEvent?: boolean;
}

/** The part of a job's payload its webhook body is built from (routing fields such as accountId left out). */
function eventOf(payload: Record<string, unknown>): unknown {
  if (payload.body !== undefined) return payload.body;
  if (payload.pix !== undefined) return { pix: payload.pix };
  const { accountId: _account, ...rest } = payload;
  return rest;
}

const bodyOf = (corpo: string | null, bytes: number | null) =>
  corpo === null || bytes === null ? null : { corpo, bytes };

export async function recentDeliveries(
  sql: Sql,
  accountId: number,
  topics: string[],
  limit: number,
  filter: DeliveryFilter = {},
) {
  // Sandbox-sized: walks the outbox backwards by id; the account filter is on the payload every webhook topic carries.
  const { rows } = await sql.query<DeliveryRow>(
    // `available_at` is stored on the service's time: shown on the account's own clock, like the attempts.
    `select id, topic, payload, attempts, done_at, last_error, created_at,
            available_at + coalesce((select offset_ms from sandbox_clocks where account_id = $2::text::bigint), 0)
                           * interval '1 millisecond' as available_at
       from outbox
     where topic = any($1) and payload->>'accountId' = $2
       and ($4::text is null or payload->>$4::text = $7::text)
       and ($5::timestamptz is null or created_at >= $5) and ($6::timestamptz is null or created_at < $6)
       and ($8::text is null or ordering_key = $8)
     order by id desc limit $3`,
    [
      topics,
      String(accountId),
      limit,
      filter.payload?.field ?? null,
      filter.createdFrom ?? null,
      filter.createdTo ?? null,
      filter.payload?.value ?? null,
      filter.orderingKey ?? null,
    ],
  );
  const attempts = await attemptsOf(
    sql,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const own = attempts.filter((a) => a.outbox_id === row.id);
    const state = stateOf(row, own);
    return {
      id: row.id,
      topico: row.topic,
      assunto: subjectOf(row.payload) ?? null,
      situacao: state,
      criacao: row.created_at.toISOString(),
      proximaTentativa: state === 'pendente' ? row.available_at.toISOString() : null,
      ultimoErro: row.last_error,
      ...(filter.withEvent && { evento: eventOf(row.payload) }),
      tentativas: own.map((a) => ({
        numero: a.attempt,
        horario: a.attempted_at.toISOString(),
        url: a.url,
        statusHttp: a.status_code,
        latenciaMs: a.latency_ms,
        erro: a.error,
        // The first LIMITS.webhookAttemptBodyBytes of each body, with its whole size (null before they were kept).
        enviado: bodyOf(a.request_body, a.request_bytes),
        resposta: bodyOf(a.response_body, a.response_bytes),
      })),
    };
  });
}
