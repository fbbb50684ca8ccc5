/** Storage of sent Pix (migration 015). */
import type { Sql } from '../../platform/db/database.ts';
import { qualifiedColumns } from '../../platform/db/columns.ts';
import type { SentFavorecido } from '../../platform/extensions.ts';
import { asLedgerError, ledgerAccountIds, ledgerCode, transferCtes } from '../../platform/ledger/ledger.ts';
import { moneyMoved } from '../../platform/logging.ts';
import { jobsEnqueued, outboxInsertSql, outboxRowValues, type NewJob, type Topic } from '../../platform/outbox/jobs.ts';
import type { PayableCharge } from '../payments/store.ts';
import type { PaymentTarget } from '../payments/types.ts';
import { LIVE_PIX_WEBHOOK } from '../webhook/store.ts';

export type SentStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
export type SentVia = 'chave' | 'dados_bancarios' | 'qrcode';

// The receiver as reads and webhooks show it (identificacao unmasked here; masked in views).
export type { SentFavorecido };

export interface SentPixRow {
  id: number;
  account_id: number;
  id_envio: string;
  end_to_end_id: string;
  request: Record<string, unknown>;
  via: SentVia;
  payer_key: string;
  info_pagador: string | null;
  amount_cents: number;
  favorecido: SentFavorecido;
  destination: 'pixd' | 'externa';
  target: PaymentTarget | null;
  receiver_account_id: number | null;
  status: SentStatus;
  motivo: string | null;
  requested_at: Date;
  settled_at: Date | null;
}

const COLUMNS = `id, account_id, id_envio, end_to_end_id, request, via, payer_key, info_pagador, amount_cents, favorecido,
  destination, target, receiver_account_id, status, motivo, requested_at, settled_at`;
/** COLUMNS qualified by a table alias, for statements that join. */
export const sentPixColumnsOf = (alias: string) => qualifiedColumns(COLUMNS, alias);

/**
 * The ids of the ledger accounts a send's settlement may move money between, as columns `sending_id`,
 * `available_id` and `external_id` over the send row `alias` (`externalCode`: SQL text of `external:pix`'s code);
 * null while an account was never used.
 */
export const sendLedgerIdsSql = (alias: string, externalCode: string) =>
  `(select l.id from ledger_accounts l where l.code = 'customer:' || ${alias}.account_id || ':sending') as sending_id,
   (select l.id from ledger_accounts l where l.code = 'customer:' || ${alias}.account_id || ':available') as available_id,
   (select l.id from ledger_accounts l where l.code = ${externalCode}) as external_id`;

export async function findSentByIdEnvio(sql: Sql, accountId: number, idEnvio: string): Promise<SentPixRow | undefined> {
  const { rows } = await sql.query<SentPixRow>(
    `select ${COLUMNS} from sent_pix where account_id = $1 and id_envio = $2`,
    [accountId, idEnvio],
  );
  return rows[0];
}

export async function findSentByE2e(sql: Sql, accountId: number, e2eId: string): Promise<SentPixRow | undefined> {
  const { rows } = await sql.query<SentPixRow>(
    `select ${COLUMNS} from sent_pix where account_id = $1 and end_to_end_id = $2`,
    [accountId, e2eId],
  );
  return rows[0];
}

/**
 * What a send request reads once it holds the payer's account row, in one statement: whether the idEnvio
 * was used, the payer key's owner and live webhook, the available balance (the posted total) and the ids
 * of the two ledger accounts the hold moves money between (null until first used).
 */
export interface SendContext {
  existingId: number | null;
  payerKeyOwner: number | null;
  payerKeyHasWebhook: boolean;
  availableCents: number;
  availableLedgerId: number | null;
  sendingLedgerId: number | null;
}

export async function readSendContext(
  sql: Sql,
  accountId: number,
  idEnvio: string,
  payerKey: string,
): Promise<SendContext> {
  const { rows } = await sql.query<{
    existing_id: number | null;
    payer_key_owner: number | null;
    has_webhook: boolean;
    available_id: number | null;
    available_cents: number | null;
    sending_id: number | null;
  }>(
    `select (select id from sent_pix where account_id = $1 and id_envio = $2) as existing_id,
       (select account_id from pix_keys where chave = $3 and removed_at is null) as payer_key_owner,
       exists (select 1 ${LIVE_PIX_WEBHOOK} where w.chave = $3 and w.account_id = $1) as has_webhook,
       av.id as available_id, av.balance_cents as available_cents,
       (select id from ledger_accounts where code = $5) as sending_id
     from (select 1) as one left join ledger_accounts av on av.code = $4`,
    [accountId, idEnvio, payerKey, ledgerCode.available(accountId), ledgerCode.sending(accountId)],
  );
  const r = rows[0];
  return {
    existingId: r.existing_id,
    payerKeyOwner: r.payer_key_owner,
    payerKeyHasWebhook: r.has_webhook,
    availableCents: r.available_cents ?? 0,
    availableLedgerId: r.available_id,
    sendingLedgerId: r.sending_id,
  };
}

/** Ids of two ledger accounts, from what was read when both exist, else resolved (and created) first. */
async function ledgerIdsOf(
  sql: Sql,
  codes: [string, string],
  known: [number | null, number | null],
): Promise<[number, number]> {
  if (known[0] !== null && known[1] !== null) return [known[0], known[1]];
  const ids = await ledgerAccountIds(sql, codes);
  return [ids.get(codes[0])!, ids.get(codes[1])!];
}

/**
 * A new send, its hold and its settlement job in one statement: the `sent_pix` row (EM_PROCESSAMENTO), the
 * journal entry `available -> sending` (`transferCtes`, as `transfer` would write it) and the outbox row of
 * `settle`, whose payload `{sentPixId}` needs the row's id and is built here. The job is due at
 * `requested_at` on the payer's clock, converted as `enqueue` does.
 */
export async function insertSentWithHold(
  sql: Sql,
  row: Omit<SentPixRow, 'id' | 'status' | 'motivo' | 'settled_at'>,
  hold: { kind: string; ledgerIds: [number | null, number | null] },
  settle: Topic<{ sentPixId: number }>,
): Promise<SentPixRow> {
  const [availableId, sendingId] = await ledgerIdsOf(
    sql,
    [ledgerCode.available(row.account_id), ledgerCode.sending(row.account_id)],
    hold.ledgerIds,
  );
  let rows: SentPixRow[];
  try {
    ({ rows } = await sql.query<SentPixRow>(
      `with sent as (
         insert into sent_pix (account_id, id_envio, end_to_end_id, request, via, payer_key, info_pagador, amount_cents,
           favorecido, destination, target, receiver_account_id, status, requested_at)
         values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::jsonb, $10, $11::jsonb, $12, 'EM_PROCESSAMENTO', $13)
         returning ${COLUMNS}),
       ${transferCtes({ guard: 'sent', kind: '$14', reference: '$3', accountId: '$1', at: '$13', fromId: '$15', toId: '$16', amountCents: '$8' })},
       job as (${outboxInsertSql({
         topic: '$17',
         orderingKey: 'null',
         payload: "jsonb_build_object('sentPixId', sent.id)",
         availableAt: '$13',
         createdAt: '$13',
         accountId: '$1',
         from: 'sent',
         lock: 'for share',
       })})
       select * from sent`,
      [
        row.account_id,
        row.id_envio,
        row.end_to_end_id,
        JSON.stringify(row.request),
        row.via,
        row.payer_key,
        row.info_pagador,
        row.amount_cents,
        JSON.stringify(row.favorecido),
        row.destination,
        row.target ? JSON.stringify(row.target) : null,
        row.receiver_account_id,
        row.requested_at,
        hold.kind,
        availableId,
        sendingId,
        settle.name,
      ],
    ));
  } catch (error) {
    throw asLedgerError(error, { kind: hold.kind, reference: row.end_to_end_id });
  }
  moneyMoved(sql, {
    kind: hold.kind,
    reference: row.end_to_end_id,
    accountId: row.account_id,
    amountCents: row.amount_cents,
  });
  jobsEnqueued(sql, settle);
  return rows[0];
}

/**
 * A send row locked for its settlement, with the payer as a Pix names it and the ids of the ledger accounts
 * a settlement may move money between (read beside the row: one statement).
 */
export interface SentForSettlement {
  sent: SentPixRow;
  payer: { nome: string; cpf?: string; cnpj?: string };
  /** The payer's account number (an SPI message names it). */
  payerConta: string;
  ledgerIds: { sending: number | null; available: number | null; externalPix: number | null };
}

export async function lockSentForSettlement(sql: Sql, id: number): Promise<SentForSettlement | undefined> {
  const { rows } = await sql.query<
    SentPixRow & {
      payer_nome: string;
      payer_documento: string;
      payer_conta: string;
      sending_id: number | null;
      available_id: number | null;
      external_id: number | null;
    }
  >(
    `select ${sentPixColumnsOf('s')}, a.nome as payer_nome, a.documento as payer_documento, a.conta as payer_conta,
       ${sendLedgerIdsSql('s', '$2')}
     from sent_pix s join accounts a on a.id = s.account_id where s.id = $1 for update of s`,
    [id, ledgerCode.externalPix],
  );
  if (!rows[0]) return undefined;
  const { payer_nome, payer_documento, payer_conta, sending_id, available_id, external_id, ...sent } = rows[0];
  return {
    sent,
    payer: identityOf({ nome: payer_nome, documento: payer_documento }),
    payerConta: payer_conta,
    ledgerIds: { sending: sending_id, available: available_id, externalPix: external_id },
  };
}

/**
 * A send's outcome in one statement: its status, the entry that moves the held amount (`from -> to`, which
 * `transferCtes` writes as `transfer` would) and the payer's webhook event (`event`, enqueued as `enqueue`
 * would: due at once on the payer's clock). Only a send still EM_PROCESSAMENTO changes; returns the row.
 */
export async function settleSentWithEntry<P>(
  sql: Sql,
  sent: SentPixRow,
  outcome: { status: 'REALIZADO' | 'NAO_REALIZADO'; at: Date; motivo: string | null; kind: string },
  ledger: { codes: [string, string]; ids: [number | null, number | null] },
  event: NewJob<P>,
): Promise<SentPixRow> {
  const [fromId, toId] = await ledgerIdsOf(sql, ledger.codes, ledger.ids);
  const job = outboxRowValues(event);
  let rows: SentPixRow[];
  try {
    ({ rows } = await sql.query<SentPixRow>(
      `with settled as (
         update sent_pix set status = $2, settled_at = $3, motivo = $4
         where id = $1 and status = 'EM_PROCESSAMENTO' returning ${COLUMNS}),
       ${transferCtes({ guard: 'settled', kind: '$5', reference: '$6', accountId: '$7', at: '$3', fromId: '$8', toId: '$9', amountCents: '$10' })},
       job as (${outboxInsertSql({
         topic: '$11',
         orderingKey: '$12',
         payload: '$13::jsonb',
         availableAt: '$14',
         createdAt: '$15',
         accountId: '$16',
         from: 'settled',
         lock: 'for share',
       })})
       select * from settled`,
      [
        sent.id,
        outcome.status,
        outcome.at,
        outcome.motivo,
        outcome.kind,
        sent.end_to_end_id,
        sent.account_id,
        fromId,
        toId,
        sent.amount_cents,
        ...job,
      ],
    ));
  } catch (error) {
    throw asLedgerError(error, { kind: outcome.kind, reference: sent.end_to_end_id });
  }
  // Nothing was written when the send had left EM_PROCESSAMENTO already.
  if (rows[0])
    moneyMoved(sql, {
      kind: outcome.kind,
      reference: sent.end_to_end_id,
      accountId: sent.account_id,
      amountCents: sent.amount_cents,
    });
  jobsEnqueued(sql, event.topic);
  return rows[0];
}

export interface SentFilter {
  accountId: number;
  inicio: Date;
  fim: Date;
  status?: SentStatus;
}

export async function listSent(
  sql: Sql,
  f: SentFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: SentPixRow[]; total: number }> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  let where = 'account_id = $1 and requested_at >= $2 and requested_at <= $3';
  if (f.status) {
    params.push(f.status);
    where += ` and status = $${params.length}`;
  }
  const count = await sql.query<{ n: number }>(`select count(*)::int as n from sent_pix where ${where}`, params);
  params.push(pageSize, page * pageSize);
  const { rows } = await sql.query<SentPixRow>(
    `select ${COLUMNS} from sent_pix where ${where} order by requested_at, id limit $${params.length - 1} offset $${params.length}`,
    params,
  );
  return { rows, total: count.rows[0].n };
}

/** The active key's owner, or undefined (a removed key belongs to nobody). */
export async function keyOwner(sql: Sql, chave: string): Promise<number | undefined> {
  const { rows } = await sql.query<{ account_id: number }>(
    'select account_id from pix_keys where chave = $1 and removed_at is null',
    [chave],
  );
  return rows[0]?.account_id;
}

/** The active key's owner with the holder's identity (a send's receiver), in one read; undefined for nobody's key. */
export async function keyHolder(
  sql: Sql,
  chave: string,
): Promise<{ accountId: number; identity: { nome: string; cpf?: string; cnpj?: string } } | undefined> {
  const { rows } = await sql.query<{ account_id: number; nome: string; documento: string }>(
    `select k.account_id, a.nome, a.documento from pix_keys k join accounts a on a.id = k.account_id
      where k.chave = $1 and k.removed_at is null`,
    [chave],
  );
  return rows[0] && { accountId: rows[0].account_id, identity: identityOf(rows[0]) };
}

export async function accountByConta(sql: Sql, conta: string): Promise<{ id: number } | undefined> {
  const { rows } = await sql.query<{ id: number }>('select id from accounts where conta = $1', [conta]);
  return rows[0];
}

export async function accountHolder(
  sql: Sql,
  accountId: number,
): Promise<{ nome: string; documento: string; conta: string }> {
  const { rows } = await sql.query<{ nome: string; documento: string; conta: string }>(
    'select nome, documento, conta from accounts where id = $1',
    [accountId],
  );
  return rows[0];
}

/** The charge a location of this pixd serves, with what the engine's payability rules read. */
export type ChargeAtLocation = PayableCharge;

export async function chargeAtLocation(sql: Sql, token: string): Promise<ChargeAtLocation | undefined> {
  const { rows } = await sql.query<ChargeAtLocation>(
    `select c.id, c.account_id, c.txid, c.kind, c.status, c.created_at, c.amount_cents, c.chave, c.body, k.removed_at as key_removed_at
       from locations l join charges c on c.location_id = l.id left join pix_keys k on k.chave = c.chave
      where l.token = $1`,
    [token],
  );
  return rows[0];
}

/** The pixd account that sent a received Pix (a transfer between accounts), or undefined. */
export async function pixdPayerOf(sql: Sql, receivedPixId: number): Promise<number | undefined> {
  const { rows } = await sql.query<{ account_id: number }>(
    `select s.account_id from received_pix r join sent_pix s on s.end_to_end_id = r.end_to_end_id
      where r.id = $1 and r.origin = 'pixd_transfer'`,
    [receivedPixId],
  );
  return rows[0]?.account_id;
}

/** The account holder as a Pix names its payer: CPF for a person, CNPJ for a company. */
export async function holderIdentity(
  sql: Sql,
  accountId: number,
): Promise<{ nome: string; cpf?: string; cnpj?: string }> {
  return identityOf(await accountHolder(sql, accountId));
}

function identityOf(holder: { nome: string; documento: string }): { nome: string; cpf?: string; cnpj?: string } {
  return holder.documento.length === 11
    ? { nome: holder.nome, cpf: holder.documento }
    : { nome: holder.nome, cnpj: holder.documento };
}
