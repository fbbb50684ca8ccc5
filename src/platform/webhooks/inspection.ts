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

export async function recentDeliveries(sql: Sql, accountId: number, topics: string[], limit: number) {
  // Sandbox-sized: walks the outbox backwards by id; the account filter is on the payload every webhook topic carries.
  const { rows } = await sql.query<DeliveryRow>(
    // `available_at` is stored on the service's time: shown on the account's own clock, like the attempts.
    `select id, topic, payload, attempts, done_at, last_error, created_at,
            available_at + coalesce((select offset_ms from sandbox_clocks where account_id = $2::text::bigint), 0)
                           * interval '1 millisecond' as available_at
       from outbox
     where topic = any($1) and payload->>'accountId' = $2 order by id desc limit $3`,
    [topics, String(accountId), limit],
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
      tentativas: own.map((a) => ({
        numero: a.attempt,
        horario: a.attempted_at.toISOString(),
        url: a.url,
        statusHttp: a.status_code,
        latenciaMs: a.latency_ms,
        erro: a.error,
      })),
    };
  });
}
