/** CNAB statements: files, schedules and SFTP keys of the calling account. No HTTP here. */
import type { Sql } from '../../platform/db/database.ts';
import { ApiError } from '../../platform/errors.ts';
import { randomUUID } from '../../platform/ids.ts';
import { findAccount } from '../../accounts/store.ts';
import type { Caller } from '../../pix/shared/caller.ts';
import { statementBytes } from './files.ts';
import { enqueueRun, nextRunAt } from './generator.ts';
import { sshKeyPair } from './keys.ts';
import type { ScheduleRequest, ScheduleUpdate, ScheduleView, SftpKeyView } from './schemas.ts';
import {
  insertSchedule,
  listFiles,
  listSchedules,
  lockAccountSchedule,
  saveSftpKey,
  updateSchedule,
  type ScheduleRow,
} from './store.ts';

export async function statementFiles(sql: Sql, caller: Caller) {
  return (await listFiles(sql, caller.accountId)).map((f) => ({
    nome: f.name,
    data_geracao: f.generated_at.toISOString(),
    periodo_inicio: f.period_start,
    periodo_fim: f.period_end,
  }));
}

/** The file's bytes (files.ts); another account's file reads as absent. */
export async function statementFile(sql: Sql, caller: Caller, name: string): Promise<Buffer> {
  const bytes = await statementBytes(sql, caller.accountId, name);
  if (bytes === undefined) throw new ApiError(404, 'arquivo_nao_encontrado', `Arquivo ${name} não encontrado.`);
  return bytes;
}

const scheduleView = (s: ScheduleRow): ScheduleView => ({
  identificador: s.public_id,
  status: s.status,
  periodicidade: s.periodicidade,
  envia_email: s.envia_email,
  comprimir_arquivos: s.comprimir_arquivos,
  data_criacao: s.created_at.toISOString(),
  proxima_execucao: s.next_run_at?.toISOString() ?? null,
});

export async function statementSchedules(sql: Sql, caller: Caller): Promise<ScheduleView[]> {
  return (await listSchedules(sql, caller.accountId)).map(scheduleView);
}

/** A new schedule runs first at the next Brasília midnight of the account's clock. */
export async function createSchedule(sql: Sql, caller: Caller, body: ScheduleRequest): Promise<ScheduleView> {
  const next = nextRunAt(body.periodicidade, caller.now);
  const row = await insertSchedule(sql, {
    public_id: randomUUID(),
    account_id: caller.accountId,
    periodicidade: body.periodicidade,
    envia_email: body.envia_email ?? false,
    comprimir_arquivos: body.comprimir_arquivos ?? false,
    next_run_at: next,
    now: caller.now,
  });
  await enqueueRun(sql, caller.accountId, row.id, next, caller.now);
  return scheduleView(row);
}

/**
 * Changes a schedule. Deactivating stops it (its pending job finds no run due); a change of periodicity, or a
 * reactivation, schedules the next run afresh from now; other changes keep the run that is due.
 */
export async function reviseSchedule(
  sql: Sql,
  caller: Caller,
  publicId: string,
  body: ScheduleUpdate,
): Promise<ScheduleView> {
  const current = await lockAccountSchedule(sql, caller.accountId, publicId);
  if (!current) throw new ApiError(404, 'agendamento_nao_encontrado', `Agendamento ${publicId} não encontrado.`);
  const revised = { ...current, ...body };
  const restart =
    revised.status === 'ativo' && (current.status !== 'ativo' || revised.periodicidade !== current.periodicidade);
  const next =
    revised.status !== 'ativo' ? null : restart ? nextRunAt(revised.periodicidade, caller.now) : current.next_run_at;
  const row = await updateSchedule(sql, current.id, { ...revised, next_run_at: next }, caller.now);
  if (restart && next) await enqueueRun(sql, caller.accountId, current.id, next, caller.now);
  return scheduleView(row);
}

/**
 * A new key pair for the account's SFTP login; its public half replaces the previous one, its private half is
 * answered once and kept nowhere.
 */
export async function createSftpKey(
  sql: Sql,
  caller: Caller,
  address: { host: string; port: number } | undefined,
): Promise<SftpKeyView> {
  const account = await findAccount(sql, caller.accountId);
  if (!account) throw new Error(`account ${caller.accountId} not found`);
  const pair = sshKeyPair(`pixd ${account.conta}`);
  await saveSftpKey(sql, caller.accountId, pair.public, caller.now);
  return {
    privateKey: pair.private,
    usuario: account.conta,
    ...(address && { host: address.host, porta: address.port }),
  };
}
