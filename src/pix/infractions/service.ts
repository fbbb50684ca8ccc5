/**
 * MED infractions against Pix an account received (docs/infractions.md). Lifecycle:
 *
 *   (opened)   ABERTA      the amount is blocked: available -> blocked:med (what the balance covers)
 *   ABERTA     -> ACEITA   defence `aceito`: the receiver agrees; the blocked amount is refunded to the payer at once
 *   ABERTA     -> EM_DEFESA defence `rejeitado`: contested; the block stays until decided
 *   EM_DEFESA  -> ACEITA   decided upheld (sandbox tool): the blocked amount is refunded to the payer
 *   EM_DEFESA  -> REJEITADA decided not upheld: the block is released, blocked:med -> available
 *   ABERTA     -> ACEITA   no defence by `prazoFinalizacao`: decided upheld on the service clock (outbox job)
 *
 * A refund is a devolução of the received Pix (natureza MED_FRAUDE, status DEVOLVIDO) posted from the MED
 * block to `external:pix`, so the Pix's read and its webhook show it; of a Pix that came through the SPI it leaves
 * as a pacs.004 (FR01) and stays EM_PROCESSAMENTO until that message's answer (src/spi/answers.ts). Every transition locks the infraction
 * row and then the account row (before any posting, as every money path does).
 */
import type { Database, Sql } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { ApiError, invalid, notFound } from '../../platform/errors.ts';
import { balanceCents, ledgerCode, lockCustomer, transfer } from '../../platform/ledger/ledger.ts';
import { newReturnId } from '../../platform/institution.ts';
import { LIMITS } from '../../platform/limits.ts';
import { formatAmount } from '../../platform/money.ts';
import { defineTopic, enqueue, type JobOutcome, type OutboxJob } from '../../platform/outbox/jobs.ts';
import { randomAlphanumeric, randomUUID } from '../../platform/ids.ts';
import { enqueuePixEvent } from '../received/events.ts';
import {
  findReceivedPix,
  insertRefund,
  refundedOrPendingCents,
  refundsOf,
  settleRefund,
  type ReceivedPixRow,
} from '../received/store.ts';
import { paginacao } from '../shared/schemas.ts';
import type { Caller } from '../shared/caller.ts';
import { accountHolder } from '../send/store.ts';
import { creditPixdPayer, lockRefundParties } from '../send/returns.ts';
import { queuePaymentReturn } from '../../spi/outbound.ts';
import type { DefenceRequest, InfractionListQuery, OpenRequest } from './schemas.ts';
import {
  insertInfraction,
  listInfractions,
  lockInfraction,
  openInfractionOf,
  updateInfraction,
  type InfractionRow,
} from './store.ts';

/** An infraction's defence deadline: still ABERTA then, it is decided upheld (on its account's clock). */
export const INFRACTION_DEADLINE_TOPIC = defineTopic<{ infractionId: number }>({
  name: 'infraction.deadline',
  handler: ({ db, clock }) => infractionDeadlineHandler(db, clock),
});
export const INFRACTION_INVALID = 'InfracaoInvalida';
const PARTICIPANT = 'pixd';
const PAYER_PARTICIPANT = 'Instituição do pagador';

export function infractionView(i: InfractionRow) {
  return {
    idInfracao: i.id_infracao,
    endToEndId: i.end_to_end_id,
    protocolo: i.protocolo,
    dataTransacao: i.opened_at.toISOString(),
    valor: formatAmount(i.amount_cents),
    ...(i.chave && { chave: i.chave }),
    status: i.status,
    razao: i.razao,
    tipoSituacao: i.tipo_situacao,
    ...(i.defesa && { defesa: i.defesa }),
    identificadorTicket: [] as number[],
    dadosAnalise: {
      abertura: i.opened_at.toISOString(),
      prazoFinalizacao: i.deadline_at.toISOString(),
      ...(i.defence_at && { recebimentoDefesa: i.defence_at.toISOString() }),
      ...(i.finished_at && { finalizacao: i.finished_at.toISOString() }),
    },
    origem: i.origem,
    destino: i.destino,
    criadoEm: i.opened_at.toISOString(),
    atualizadoEm: i.updated_at.toISOString(),
  };
}

/** Sandbox: the payer's institution opens an infraction against a Pix the caller received. */
export async function openInfraction(sql: Sql, caller: Caller, body: OpenRequest) {
  const pix = await findReceivedPix(sql, caller.accountId, body.endToEndId, true);
  if (!pix) throw notFound(`Pix ${body.endToEndId} não encontrado.`);
  if (await openInfractionOf(sql, pix.id))
    throw invalid(INFRACTION_INVALID, 'Já existe uma infração em aberto para este Pix.', [
      { property: 'endToEndId', reason: 'infração em aberto.', value: body.endToEndId },
    ]);
  await lockCustomer(sql, caller.accountId);
  // What can still go back to the payer (earlier refunds count), and of it what the balance covers.
  const refundable = pix.amount_cents - (await refundedOrPendingCents(sql, pix.id));
  const available = await balanceCents(sql, ledgerCode.available(caller.accountId));
  const blocked = Math.max(0, Math.min(refundable, available));
  const idInfracao = randomUUID();
  if (blocked > 0)
    await transfer(sql, {
      kind: 'bloqueio_med',
      reference: idInfracao,
      accountId: caller.accountId,
      at: caller.now,
      from: ledgerCode.available(caller.accountId),
      to: ledgerCode.blocked(caller.accountId, 'med'),
      amountCents: blocked,
    });
  const holder = await accountHolder(sql, caller.accountId);
  const deadline = new Date(caller.now.getTime() + LIMITS.infractionDefenceDays * 86_400_000);
  const infraction = await insertInfraction(sql, {
    id_infracao: idInfracao,
    account_id: caller.accountId,
    received_pix_id: pix.id,
    end_to_end_id: pix.end_to_end_id,
    protocolo: randomAlphanumeric(12, '0123456789'),
    amount_cents: pix.amount_cents,
    blocked_cents: blocked,
    chave: pix.chave,
    razao: body.motivo,
    tipo_situacao: body.tipoSituacao ?? 'golpe',
    origem: {
      nomeParticipante: PAYER_PARTICIPANT,
      conta: '',
      nome: pix.pagador_nome,
      documento: pix.pagador_cpf ?? pix.pagador_cnpj ?? '',
    },
    destino: { nomeParticipante: PARTICIPANT, conta: holder.conta, nome: holder.nome, documento: holder.documento },
    opened_at: caller.now,
    deadline_at: deadline,
  });
  await enqueue(sql, {
    topic: INFRACTION_DEADLINE_TOPIC,
    payload: { infractionId: infraction.id },
    accountId: infraction.account_id,
    availableAt: deadline,
    now: caller.now,
  });
  return infractionView(infraction);
}

/** The blocked amount goes back to the payer: a devolução of the received Pix, from the MED block. */
async function refundToPayer(sql: Sql, i: InfractionRow, now: Date): Promise<void> {
  if (i.blocked_cents === 0) return;
  const { rows } = await sql.query<ReceivedPixRow>('select * from received_pix where id = $1', [i.received_pix_id]);
  const refund = await insertRefund(sql, {
    received_pix_id: i.received_pix_id,
    account_id: i.account_id,
    refund_id: `MED${i.protocolo}`,
    rtr_id: newReturnId(now),
    amount_cents: i.blocked_cents,
    status: 'EM_PROCESSAMENTO',
    natureza: 'MED_FRAUDE',
    descricao: `Devolução por infração MED ${i.id_infracao}`,
    requested_at: now,
  });
  await transfer(sql, {
    kind: 'devolucao_med',
    reference: refund.rtr_id,
    accountId: i.account_id,
    at: now,
    from: ledgerCode.blocked(i.account_id, 'med'),
    to: ledgerCode.externalPix,
    amountCents: i.blocked_cents,
  });
  if (rows[0].origin === 'spi') {
    // A Pix from another institution goes back through the SPI as a pacs.004 (FR01); its answer settles the
    // devolução as it settles a refund's (src/spi/answers.ts).
    const back = { refundId: refund.id, accountId: i.account_id, rtrId: refund.rtr_id, amountCents: i.blocked_cents };
    await queuePaymentReturn(sql, { ...back, originalEndToEndId: i.end_to_end_id, reason: 'FR01' }, now);
    return;
  }
  await creditPixdPayer(
    sql,
    { receivedPixId: i.received_pix_id, amountCents: i.blocked_cents, rtrId: refund.rtr_id },
    now,
  );
  await settleRefund(sql, refund.id, 'DEVOLVIDO', now, null);
  await enqueuePixEvent(sql, rows[0], await refundsOf(sql, [i.received_pix_id]), now);
}

async function releaseBlock(sql: Sql, i: InfractionRow, now: Date): Promise<void> {
  if (i.blocked_cents === 0) return;
  await transfer(sql, {
    kind: 'desbloqueio_med',
    reference: i.id_infracao,
    accountId: i.account_id,
    at: now,
    from: ledgerCode.blocked(i.account_id, 'med'),
    to: ledgerCode.available(i.account_id),
    amountCents: i.blocked_cents,
  });
}

/** Upheld: refunded to the payer (ACEITA). Not upheld: block released (REJEITADA). */
async function conclude(sql: Sql, i: InfractionRow, upheld: boolean, now: Date): Promise<InfractionRow> {
  await lockRefundParties(sql, i.account_id, i.received_pix_id);
  if (upheld) await refundToPayer(sql, i, now);
  else await releaseBlock(sql, i, now);
  return updateInfraction(sql, i.id, { status: upheld ? 'ACEITA' : 'REJEITADA', at: now, finished: true });
}

/** `POST /v2/gn/infracoes/:idInfracao/defesa`: once, while ABERTA and before the deadline. */
export async function defend(sql: Sql, caller: Caller, idInfracao: string, body: DefenceRequest) {
  const i = await lockInfraction(sql, idInfracao, caller.accountId);
  if (!i) throw notFound(`Infração ${idInfracao} não encontrada.`);
  if (i.status !== 'ABERTA')
    throw invalid(INFRACTION_INVALID, `A infração está ${i.status}: a defesa é aceita uma vez, enquanto ABERTA.`, [
      { property: 'idInfracao', reason: 'defesa já recebida ou infração encerrada.', value: idInfracao },
    ]);
  if (caller.now.getTime() >= i.deadline_at.getTime())
    throw invalid(INFRACTION_INVALID, `O prazo de defesa terminou em ${i.deadline_at.toISOString()}.`, [
      { property: 'idInfracao', reason: 'prazo encerrado.', value: idInfracao },
    ]);
  const defended = await updateInfraction(sql, i.id, {
    status: 'EM_DEFESA',
    at: caller.now,
    defesa: body.justificativa,
    analise: body.analise,
    defended: true,
  });
  // `aceito`: the receiver agrees to return the money, so the infraction ends upheld at once.
  const result = body.analise === 'aceito' ? await conclude(sql, defended, true, caller.now) : defended;
  return infractionView(result);
}

/** Sandbox: the decision of a contested infraction (EM_DEFESA). */
export async function decide(sql: Sql, caller: Caller, idInfracao: string, procedente: boolean) {
  const i = await lockInfraction(sql, idInfracao, caller.accountId);
  if (!i) throw notFound(`Infração ${idInfracao} não encontrada.`);
  if (i.status !== 'EM_DEFESA')
    throw new ApiError(400, INFRACTION_INVALID, `Só uma infração EM_DEFESA é decidida; esta está ${i.status}.`, [
      { property: 'idInfracao', reason: 'não contestada.', value: idInfracao },
    ]);
  return infractionView(await conclude(sql, i, procedente, caller.now));
}

export async function listInfractionsOf(sql: Sql, caller: Caller, q: InfractionListQuery) {
  const inicio = new Date(q.inicio);
  const fim = new Date(q.fim);
  if (fim < inicio)
    throw invalid('InfracaoConsultaInvalida', 'fim é anterior a inicio.', [
      { property: 'fim', reason: 'fim é anterior a inicio.', value: q.fim },
    ]);
  const page = q['paginacao.paginaAtual'] ?? 0;
  const pageSize = q['paginacao.itensPorPagina'] ?? LIMITS.pageSizeDefault;
  const { rows, total } = await listInfractions(sql, { accountId: caller.accountId, inicio, fim }, page, pageSize);
  return {
    parametros: { inicio: q.inicio, fim: q.fim, paginacao: paginacao(page, pageSize, total) },
    infracoes: rows.map(infractionView),
  };
}

/** The deadline on the service clock: an infraction still ABERTA (no defence) is decided upheld. */
export function infractionDeadlineHandler(db: Database, clock: Clock) {
  return async (job: OutboxJob<{ infractionId: number }>): Promise<JobOutcome> => {
    await db.tx(async (sql) => {
      const { rows } = await sql.query<{ id_infracao: string }>('select id_infracao from infractions where id = $1', [
        job.payload.infractionId,
      ]);
      if (!rows[0]) return;
      const i = await lockInfraction(sql, rows[0].id_infracao);
      if (i?.status !== 'ABERTA') return;
      await conclude(sql, i, true, clock.forAccount(i.account_id).now());
    });
    return { done: true };
  };
}
