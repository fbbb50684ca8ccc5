/**
 * Requests to the payer's institution to confirm a recurrence (Bacen /solicrec). A request goes
 * CRIADA -> ENVIADA -> RECEBIDA (job `solicrec.send`: the delivery to the payer's institution, simulated),
 * then the payer answers: ACEITA approves the recurrence and records the payer's account in it, REJEITADA
 * rejects it; with no answer by `calendario.dataExpiracaoSolicitacao` (job `solicrec.expire`, on the account
 * clock) the request and a still-new recurrence are EXPIRADA; the receiver may cancel an open request.
 * Recurrence changes go through the recurrence's own state machine (and its `/rec` webhook). No HTTP here.
 */
import { findAccount } from '../../accounts/store.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Database, Sql } from '../../platform/db/database.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { RECEIVER_ISPB } from '../../platform/institution.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import { changeRecStatus } from '../rec/service.ts';
import { findRec } from '../rec/store.ts';
import type { Caller } from '../shared/caller.ts';
import type { SolicRecCompleta, SolicRecCreate, SolicRecStatus } from './schemas.ts';
import { findSolicRec, findSolicRecById, insertSolicRec, updateSolicRec, type SolicRecRow } from './store.ts';

export const SOLICREC_INVALID = 'SolicRecOperacaoInvalida';
export const SOLICREC_NOT_FOUND = 'SolicRecNaoEncontrada';

const OPEN: readonly SolicRecStatus[] = ['CRIADA', 'ENVIADA', 'RECEBIDA'];

const refuse = (reason: string, property: string, value?: unknown) =>
  invalid(SOLICREC_INVALID, 'A requisição não respeita o schema ou está semanticamente errada.', [
    { property, reason, ...(value !== undefined && { value }) },
  ]);

type Job = { solicRecId: number; accountId: number };

export const SOLICREC_TOPICS = {
  send: defineTopic<Job>({ name: 'solicrec.send', handler: ({ db, clock }) => sendHandler(db, clock) }),
  expire: defineTopic<Job>({ name: 'solicrec.expire', handler: ({ db, clock }) => expireHandler(db, clock) }),
};

export async function solicRecView(sql: Sql, row: SolicRecRow): Promise<SolicRecCompleta> {
  const rec = await findRec(sql, row.account_id, row.id_rec);
  const account = await findAccount(sql, row.account_id);
  const documento = account?.documento ?? '';
  return {
    idSolicRec: row.id_solic_rec,
    idRec: row.id_rec,
    calendario: row.body.calendario,
    destinatario: row.body.destinatario,
    status: row.status,
    atualizacao: row.atualizacao,
    recPayload: {
      idRec: row.id_rec,
      vinculo: rec?.body.vinculo,
      calendario: rec?.body.calendario,
      ...(rec?.body.valor && { valor: rec.body.valor }),
      recebedor: {
        ...(documento.length === 11 ? { cpf: documento } : { cnpj: documento }),
        nome: account?.nome ?? '',
        ispbParticipante: RECEIVER_ISPB,
      },
      politicaRetentativa: rec?.politica_retentativa ?? '',
      atualizacao: rec?.atualizacao ?? [],
    },
  };
}

const withStatus = (row: SolicRecRow, status: SolicRecStatus, now: Date): SolicRecRow => ({
  ...row,
  status,
  atualizacao: [...row.atualizacao, { status, data: now.toISOString() }],
});

export async function createSolicRec(sql: Sql, caller: Caller, body: SolicRecCreate): Promise<SolicRecCompleta> {
  const rec = await findRec(sql, caller.accountId, body.idRec, true);
  if (!rec) throw refuse(`A recorrência ${body.idRec} não existe.`, 'solicrec.idRec', body.idRec);
  if (rec.status !== 'CRIADA')
    throw refuse(`A recorrência ${body.idRec} está ${rec.status}, não CRIADA.`, 'solicrec.idRec', body.idRec);
  const expiresAt = new Date(body.calendario.dataExpiracaoSolicitacao);
  if (expiresAt <= caller.now)
    throw refuse(
      'O campo solicrec.calendario.dataExpiracaoSolicitacao é anterior à data de criação da solicitação.',
      'solicrec.calendario.dataExpiracaoSolicitacao',
      body.calendario.dataExpiracaoSolicitacao,
    );
  const { destinatario } = body;
  if ((destinatario.cpf === undefined) === (destinatario.cnpj === undefined))
    throw refuse('Informe exatamente um de cpf e cnpj.', 'solicrec.destinatario');
  const idSolicRec = `SC${RECEIVER_ISPB}${brasiliaDate(caller.now).replaceAll('-', '')}${randomAlphanumeric(11)}`;
  const id = await insertSolicRec(
    sql,
    {
      account_id: caller.accountId,
      id_solic_rec: idSolicRec,
      recurrence_id: rec.id,
      body: { calendario: body.calendario, destinatario },
      expires_at: expiresAt,
    },
    caller.now,
  );
  if (id === undefined)
    throw refuse('Existe uma solicitação ativa referente ao mesmo solicrec.idRec.', 'solicrec.idRec', body.idRec);
  const job = { solicRecId: id, accountId: caller.accountId };
  await enqueue(sql, {
    topic: SOLICREC_TOPICS.send,
    payload: job,
    accountId: caller.accountId,
    availableAt: caller.now,
    now: caller.now,
  });
  await enqueue(sql, {
    topic: SOLICREC_TOPICS.expire,
    payload: job,
    accountId: caller.accountId,
    availableAt: expiresAt,
    now: caller.now,
  });
  return solicRecView(sql, (await findSolicRecById(sql, id)) as SolicRecRow);
}

async function ownSolicRec(sql: Sql, accountId: number, idSolicRec: string, lock = false): Promise<SolicRecRow> {
  const row = await findSolicRec(sql, accountId, idSolicRec, lock);
  if (!row) throw notFound(`Solicitação ${idSolicRec} não encontrada.`, SOLICREC_NOT_FOUND);
  return row;
}

export async function readSolicRec(sql: Sql, caller: Caller, idSolicRec: string): Promise<SolicRecCompleta> {
  return solicRecView(sql, await ownSolicRec(sql, caller.accountId, idSolicRec));
}

export async function cancelSolicRec(sql: Sql, caller: Caller, idSolicRec: string): Promise<SolicRecCompleta> {
  const row = await ownSolicRec(sql, caller.accountId, idSolicRec, true);
  if (!OPEN.includes(row.status))
    throw refuse(
      'Não é possível cancelar uma solicitação de recorrência com o status diferente de CRIADA, ENVIADA ou RECEBIDA.',
      'solicrec.status',
      row.status,
    );
  const next = withStatus(row, 'CANCELADA', caller.now);
  await updateSolicRec(sql, next, caller.now);
  return solicRecView(sql, next);
}

/** The request reaches the payer's institution (simulated): CRIADA -> ENVIADA -> RECEBIDA. */
const delivered = (row: SolicRecRow, now: Date): SolicRecRow =>
  withStatus(withStatus(row, 'ENVIADA', now), 'RECEBIDA', now);

/**
 * The payer answers a request it received (the sandbox's payer tools): acceptance approves the recurrence
 * with the payer's account (journey 1), rejection rejects it. Only a received request can be answered; one
 * whose delivery job has not run yet is delivered here first, in the same transaction (the payer's answer
 * implies it got the request, and the job, finding it no longer CRIADA, then does nothing): an answer right
 * after the creation never races the delivery.
 */
export async function answerSolicRec(
  sql: Sql,
  accountId: number,
  idSolicRec: string,
  accepted: boolean,
  now: Date,
): Promise<SolicRecCompleta> {
  let row = await ownSolicRec(sql, accountId, idSolicRec, true);
  if (row.status === 'CRIADA') row = delivered(row, now);
  if (row.status !== 'RECEBIDA')
    throw refuse(
      `Uma solicitação ${row.status} não pode ser respondida (somente RECEBIDA).`,
      'solicrec.status',
      row.status,
    );
  const rec = await findRec(sql, accountId, row.id_rec, true);
  if (!rec) throw refuse('A recorrência da solicitação não existe.', 'solicrec.idRec');
  if (accepted) {
    const { destinatario } = row.body;
    await changeRecStatus(
      sql,
      rec,
      {
        status: 'APROVADA',
        tipoJornada: 'JORNADA_1',
        pagador: {
          ispbParticipante: destinatario.ispbParticipante,
          ...(destinatario.cpf && { cpf: destinatario.cpf }),
          ...(destinatario.cnpj && { cnpj: destinatario.cnpj }),
          nome: rec.body.vinculo.devedor.nome,
          ...(destinatario.agencia && { agencia: destinatario.agencia }),
          conta: destinatario.conta,
        },
      },
      now,
    );
  } else {
    await changeRecStatus(
      sql,
      rec,
      {
        status: 'REJEITADA',
        encerramento: { rejeicao: { codigo: 'AP13', descricao: 'Recorrência rejeitada pelo usuário pagador.' } },
      },
      now,
    );
  }
  const next = withStatus(row, accepted ? 'ACEITA' : 'REJEITADA', now);
  await updateSolicRec(sql, next, now);
  return solicRecView(sql, next);
}

function sendHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Job>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const row = await findSolicRecById(sql, job.payload.solicRecId, true);
      if (row?.status !== 'CRIADA') return;
      const now = clock.forAccount(row.account_id).now();
      await updateSolicRec(sql, delivered(row, now), now);
    });
    return { done: true };
  };
}

function expireHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<Job>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const row = await findSolicRecById(sql, job.payload.solicRecId, true);
      if (!row || !OPEN.includes(row.status)) return;
      const now = clock.forAccount(row.account_id).now();
      await updateSolicRec(sql, withStatus(row, 'EXPIRADA', now), now);
      const rec = await findRec(sql, row.account_id, row.id_rec, true);
      if (rec?.status === 'CRIADA') await changeRecStatus(sql, rec, { status: 'EXPIRADA' }, now);
    });
    return { done: true };
  };
}
