/**
 * Recurrences of automatic Pix (Bacen /rec): creation, reads, the receiver's revisions and the one state
 * machine every status change goes through, whoever causes it (the receiver's PATCH, the payer's side in
 * the sandbox, a request to the payer's institution). Each change appends to `atualizacao` and enqueues the
 * `/rec` webhook in the same transaction. No HTTP here.
 */
import { findAccount } from '../../accounts/store.ts';
import type { Sql } from '../../platform/db/database.ts';
import { invalid, notFound, type Violation } from '../../platform/errors.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { RECEIVER_ISPB } from '../../platform/institution.ts';
import { LIMITS } from '../../platform/limits.ts';
import { findCharge, type ChargeRow } from '../charges/store.ts';
import { brasiliaDate } from '../../platform/calendar.ts';
import type { Caller } from '../shared/caller.ts';
import { paginacao } from '../shared/schemas.ts';
import { enqueueAccountEvent } from '../webhook/events.ts';
import type { DadosPagador, RecCompleta, RecCreate, RecListQuery, RecPatch, RecStatus } from './schemas.ts';
import { linkLocationToRec, recLocationView } from '../locrec/service.ts';
import { findRecLocation } from '../locrec/store.ts';
import { recQrData } from './qr.ts';
import { findRec, insertRec, latestRec, listRecs, updateRec, type RecEncerramento, type RecRow } from './store.ts';

export const REC_INVALID = 'RecOperacaoInvalida';
export const REC_QUERY_INVALID = 'RecConsultaInvalida';
export const REC_NOT_FOUND = 'RecNaoEncontrada';

/**
 * The transitions the standard allows (RecStatus): a new recurrence is approved, rejected, expires or is
 * cancelled; an approved one can only be cancelled; the three others are final.
 */
const TRANSITIONS: Record<RecStatus, readonly RecStatus[]> = {
  CRIADA: ['APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'],
  APROVADA: ['CANCELADA'],
  REJEITADA: [],
  EXPIRADA: [],
  CANCELADA: [],
};

const FINAL_DETAIL = 'A recorrência encontra-se expirada, cancelada ou rejeitada.';

const refuse = (reason: string, property: string, value?: unknown) =>
  invalid(REC_INVALID, 'A requisição não respeita o schema ou está semanticamente errada.', [
    { property, reason, ...(value !== undefined && { value }) },
  ]);

export function newRecId(politica: RecRow['politica_retentativa'], now: Date): string {
  const day = brasiliaDate(now).replaceAll('-', '');
  return `R${politica === 'PERMITE_3R_7D' ? 'R' : 'N'}${RECEIVER_ISPB}${day}${randomAlphanumeric(11)}`;
}

/** The receiver of a recurrence is its account: CPF or CNPJ by the document's length, and its name. */
export async function recReceiver(sql: Sql, row: RecRow): Promise<{ cpf?: string; cnpj?: string; nome: string }> {
  const account = await findAccount(sql, row.account_id);
  const documento = account?.documento ?? '';
  return { ...(documento.length === 11 ? { cpf: documento } : { cnpj: documento }), nome: account?.nome ?? '' };
}

/** Bacen RecCompleta of a row; the receiver is the account. */
export async function recView(sql: Sql, row: RecRow, publicUrl: string): Promise<RecCompleta> {
  const location = row.location_id ? await findRecLocation(sql, row.account_id, row.location_id) : undefined;
  const { vinculo, calendario, valor, recebedor } = row.body;
  return {
    idRec: row.id_rec,
    vinculo,
    calendario,
    ...(valor && { valor }),
    recebedor: {
      ...(await recReceiver(sql, row)),
      ...(recebedor?.convenio !== undefined && { convenio: recebedor.convenio }),
    },
    ...(row.pagador && { pagador: row.pagador }),
    status: row.status,
    politicaRetentativa: row.politica_retentativa,
    ...(location && { loc: recLocationView(location, publicUrl) }),
    atualizacao: row.atualizacao,
    ...(row.encerramento && { encerramento: row.encerramento }),
    ativacao: {
      tipoJornada: row.tipo_jornada,
      ...(row.txid && { dadosJornada: { txid: row.txid } }),
    },
  };
}

/** The item of a `/rec` webhook (Bacen RecNotification). */
function recNotification(row: RecRow): Record<string, unknown> {
  return {
    idRec: row.id_rec,
    status: row.status,
    atualizacao: row.atualizacao,
    ...(row.encerramento && { encerramento: row.encerramento }),
    ativacao: { tipoJornada: row.tipo_jornada, ...(row.txid && { dadosJornada: { txid: row.txid } }) },
  };
}

const notifyRec = (sql: Sql, row: RecRow, now: Date) =>
  enqueueAccountEvent(sql, 'rec', row.account_id, recNotification(row), row.id_rec, now);

/**
 * Sends the last event of a recurrence (the given one, or the account's most recently changed) again: the
 * body is its current state, so nothing is notified that the state machine did not produce.
 */
export async function replayRecEvent(sql: Sql, accountId: number, idRec: string | undefined, now: Date) {
  const row = idRec ? await findRec(sql, accountId, idRec) : await latestRec(sql, accountId);
  if (!row) throw recNotFound(idRec ?? '(nenhuma)');
  const item = recNotification(row);
  return { entrega: await enqueueAccountEvent(sql, 'rec', accountId, item, row.id_rec, now), item };
}

/** A journey-3 txid must be one of the account's immediate charges. */
async function checkJourneyTxid(sql: Sql, accountId: number, txid: string, property: string): Promise<void> {
  if (!(await findCharge(sql, accountId, 'cob', txid)))
    throw refuse(`A cobrança imediata ${txid} não existe.`, property, txid);
}

function checkDataInicial(dataInicial: string, createdAt: Date): void {
  if (dataInicial < brasiliaDate(createdAt))
    throw refuse(
      'O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.',
      'rec.calendario.dataInicial',
      dataInicial,
    );
}

export async function createRec(sql: Sql, caller: Caller, body: RecCreate): Promise<RecCompleta> {
  const { devedor } = body.vinculo;
  if ((devedor.cpf === undefined) === (devedor.cnpj === undefined))
    throw refuse('Informe exatamente um de cpf e cnpj.', 'rec.vinculo.devedor');
  checkDataInicial(body.calendario.dataInicial, caller.now);
  if (body.calendario.dataFinal !== undefined && body.calendario.dataFinal < body.calendario.dataInicial)
    throw refuse(
      'O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial.',
      'rec.calendario.dataFinal',
      body.calendario.dataFinal,
    );
  if (body.valor?.valorRec !== undefined && body.valor.valorMinimoRecebedor !== undefined)
    throw refuse('Ambos os campos rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão preenchidos.', 'rec.valor');
  for (const [field, amount] of Object.entries(body.valor ?? {}))
    if (amount !== undefined && Number(amount) <= 0)
      throw refuse(`O campo rec.valor.${field} deve ser positivo.`, `rec.valor.${field}`, amount);
  const txid = body.ativacao?.dadosJornada?.txid ?? null;
  if (txid) await checkJourneyTxid(sql, caller.accountId, txid, 'rec.ativacao.dadosJornada.txid');
  const row = await insertRec(
    sql,
    {
      account_id: caller.accountId,
      id_rec: newRecId(body.politicaRetentativa, caller.now),
      politica_retentativa: body.politicaRetentativa,
      body: {
        vinculo: body.vinculo,
        calendario: body.calendario,
        ...(body.valor && { valor: body.valor }),
        ...(body.recebedor && { recebedor: body.recebedor }),
      },
      txid,
      devedor_documento: (devedor.cpf ?? devedor.cnpj) as string,
    },
    caller.now,
  );
  if (body.loc !== undefined) {
    await linkLocationToRec(sql, caller.accountId, row.id, row.id_rec, body.loc, (reason) =>
      refuse(reason, 'rec.loc', body.loc),
    );
    row.location_id = body.loc;
  }
  await notifyRec(sql, row, caller.now);
  return recView(sql, row, caller.publicUrl);
}

function recNotFound(idRec: string) {
  return notFound(`Recorrência ${idRec} não encontrada.`, REC_NOT_FOUND);
}

/** The caller's recurrence (another account's reads as absent), optionally locked for a change. */
export async function ownRec(sql: Sql, accountId: number, idRec: string, lock = false): Promise<RecRow> {
  const row = await findRec(sql, accountId, idRec, lock);
  if (!row) throw recNotFound(idRec);
  return row;
}

export async function readRec(sql: Sql, caller: Caller, idRec: string, txid?: string): Promise<RecCompleta> {
  const row = await ownRec(sql, caller.accountId, idRec);
  let charge: ChargeRow<unknown> | undefined;
  if (txid !== undefined) {
    const isCob = await findCharge<unknown>(sql, caller.accountId, 'cob', txid);
    const isCobv = isCob ? undefined : await findCharge<unknown>(sql, caller.accountId, 'cobv', txid);
    charge = isCob ?? isCobv;
    const violation: Violation | undefined =
      !isCob && !isCobv
        ? { property: 'txid', reason: `O txid ${txid} não corresponde a uma cobrança.`, value: txid }
        : isCob && row.txid !== null && row.txid !== txid
          ? {
              property: 'txid',
              reason: 'O txid corresponde a uma cobrança imediata diferente de ativacao.dadosJornada.txid.',
              value: txid,
            }
          : undefined;
    if (violation) throw invalid(REC_QUERY_INVALID, 'Parâmetros de consulta inválidos.', [violation]);
  }
  const dadosQR = await recQrData(sql, row, charge, caller.publicUrl);
  return { ...(await recView(sql, row, caller.publicUrl)), ...(dadosQR && { dadosQR }) };
}

export interface RecChange {
  status: RecStatus;
  pagador?: DadosPagador;
  encerramento?: RecEncerramento;
  tipoJornada?: string;
}

/**
 * The one way a recurrence changes status: refuses a transition the standard does not allow (400
 * RecOperacaoInvalida naming `rec.status`), records it in `atualizacao` and enqueues the `/rec` webhook.
 * `row` must have been read with a lock in this transaction.
 */
export async function changeRecStatus(sql: Sql, row: RecRow, change: RecChange, now: Date): Promise<RecRow> {
  if (!TRANSITIONS[row.status].includes(change.status))
    throw refuse(
      TRANSITIONS[row.status].length
        ? `Uma recorrência ${row.status} não pode passar a ${change.status}.`
        : FINAL_DETAIL,
      'rec.status',
      change.status,
    );
  const next: RecRow = {
    ...row,
    status: change.status,
    pagador: change.pagador ?? row.pagador,
    encerramento: change.encerramento ?? row.encerramento,
    tipo_jornada: change.tipoJornada ?? row.tipo_jornada,
    atualizacao: [...row.atualizacao, { status: change.status, data: now.toISOString() }],
    updated_at: now,
  };
  await updateRec(sql, next, now);
  await notifyRec(sql, next, now);
  return next;
}

export async function patchRec(sql: Sql, caller: Caller, idRec: string, patch: RecPatch): Promise<RecCompleta> {
  let row = await ownRec(sql, caller.accountId, idRec, true);
  if (!Object.keys(patch).length) throw refuse('Nenhum campo a alterar.', 'rec');
  if (TRANSITIONS[row.status].length === 0) throw refuse(FINAL_DETAIL, 'rec.status', row.status);
  if (patch.loc !== undefined) {
    if (row.status !== 'CRIADA')
      throw refuse(
        'O campo rec.loc somente pode ser alterado quando a recorrência apresentar-se com o status CRIADA.',
        'rec.loc',
      );
    const loc = patch.loc;
    await linkLocationToRec(sql, caller.accountId, row.id, row.id_rec, loc, (reason) => refuse(reason, 'rec.loc', loc));
    row = { ...row, location_id: loc };
  }
  const body = structuredClone(row.body);
  if (patch.calendario) {
    if (row.status !== 'CRIADA')
      throw refuse(
        'O campo rec.calendario.dataInicial somente pode ser alterado quando a recorrência apresentar-se com o status CRIADA.',
        'rec.calendario.dataInicial',
      );
    checkDataInicial(patch.calendario.dataInicial, row.created_at);
    if (body.calendario.dataFinal !== undefined && body.calendario.dataFinal < patch.calendario.dataInicial)
      throw refuse(
        'O campo rec.calendario.dataFinal ficaria anterior a rec.calendario.dataInicial.',
        'rec.calendario.dataInicial',
        patch.calendario.dataInicial,
      );
    body.calendario.dataInicial = patch.calendario.dataInicial;
  }
  if (patch.vinculo) body.vinculo.devedor.nome = patch.vinculo.devedor.nome;
  let txid = row.txid;
  if (patch.ativacao?.dadosJornada) {
    txid = patch.ativacao.dadosJornada.txid;
    await checkJourneyTxid(sql, caller.accountId, txid, 'rec.ativacao.dadosJornada.txid');
  }
  if (txid !== row.txid || patch.calendario || patch.vinculo) {
    row = { ...row, body, txid };
    await updateRec(sql, row, caller.now);
  }
  if (patch.status === 'CANCELADA')
    row = await changeRecStatus(
      sql,
      row,
      {
        status: 'CANCELADA',
        encerramento: {
          cancelamento: {
            solicitante: 'USUARIO_RECEBEDOR',
            codigo: 'SLCR',
            descricao: 'Cancelamento solicitado pelo usuário recebedor.',
          },
        },
      },
      caller.now,
    );
  return recView(sql, row, caller.publicUrl);
}

export async function listRecsView(sql: Sql, caller: Caller, q: RecListQuery) {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  const violations: Violation[] = [];
  if (fim < inicio) violations.push({ property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim });
  if (q.cpf && q.cnpj) violations.push({ property: 'cpf', reason: 'Informe cpf ou cnpj, não ambos.' });
  if (violations.length) throw invalid(REC_QUERY_INVALID, 'Parâmetros de consulta inválidos.', violations);
  const page = q['paginacao.paginaAtual'] ?? 0;
  const pageSize = q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listRecs(
    sql,
    {
      accountId: caller.accountId,
      inicio,
      fim,
      documento: q.cpf ?? q.cnpj,
      status: q.status,
      convenio: q.convenio,
      locationPresente: q.locationPresente,
    },
    page,
    pageSize,
  );
  const recs = [];
  for (const row of rows) recs.push(await recView(sql, row, caller.publicUrl));
  return {
    parametros: {
      inicio: q.inicio,
      fim: q.fim,
      ...(q.cpf && { cpf: q.cpf }),
      ...(q.cnpj && { cnpj: q.cnpj }),
      ...(q.locationPresente !== undefined && { locationPresente: q.locationPresente }),
      ...(q.status && { status: q.status }),
      ...(q.convenio && { convenio: q.convenio }),
      paginacao: paginacao(page, pageSize, total),
    },
    recs,
  };
}
