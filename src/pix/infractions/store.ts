/** Storage of MED infractions (migration 015). */
import type { Sql } from '../../platform/db/database.ts';

export type InfractionStatus = 'ABERTA' | 'EM_DEFESA' | 'ACEITA' | 'REJEITADA' | 'CANCELADA_EFI';

export interface Party {
  nomeParticipante: string;
  conta: string;
  nome: string;
  documento: string;
}

export interface InfractionRow {
  id: number;
  id_infracao: string;
  account_id: number;
  received_pix_id: number;
  end_to_end_id: string;
  protocolo: string;
  amount_cents: number;
  blocked_cents: number;
  chave: string | null;
  status: InfractionStatus;
  razao: string;
  tipo_situacao: string;
  defesa: string | null;
  analise: 'aceito' | 'rejeitado' | null;
  origem: Party;
  destino: Party;
  opened_at: Date;
  deadline_at: Date;
  defence_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `id, id_infracao, account_id, received_pix_id, end_to_end_id, protocolo, amount_cents, blocked_cents, chave, status,
  razao, tipo_situacao, defesa, analise, origem, destino, opened_at, deadline_at, defence_at, finished_at, updated_at`;

export async function insertInfraction(
  sql: Sql,
  row: Omit<InfractionRow, 'id' | 'status' | 'defesa' | 'analise' | 'defence_at' | 'finished_at' | 'updated_at'>,
): Promise<InfractionRow> {
  const { rows } = await sql.query<InfractionRow>(
    `insert into infractions (id_infracao, account_id, received_pix_id, end_to_end_id, protocolo, amount_cents, blocked_cents, chave,
       status, razao, tipo_situacao, origem, destino, opened_at, deadline_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, 'ABERTA', $9, $10, $11::jsonb, $12::jsonb, $13, $14, $13) returning ${COLUMNS}`,
    [
      row.id_infracao,
      row.account_id,
      row.received_pix_id,
      row.end_to_end_id,
      row.protocolo,
      row.amount_cents,
      row.blocked_cents,
      row.chave,
      row.razao,
      row.tipo_situacao,
      JSON.stringify(row.origem),
      JSON.stringify(row.destino),
      row.opened_at,
      row.deadline_at,
    ],
  );
  return rows[0];
}

/** The infraction by its public id, locked; `accountId` scopes it to its receiver when given. */
export async function lockInfraction(
  sql: Sql,
  idInfracao: string,
  accountId?: number,
): Promise<InfractionRow | undefined> {
  const { rows } = await sql.query<InfractionRow>(
    `select ${COLUMNS} from infractions where id_infracao = $1 and ($2::bigint is null or account_id = $2) for update`,
    [idInfracao, accountId ?? null],
  );
  return rows[0];
}

export async function openInfractionOf(sql: Sql, receivedPixId: number): Promise<InfractionRow | undefined> {
  const { rows } = await sql.query<InfractionRow>(
    `select ${COLUMNS} from infractions where received_pix_id = $1 and status in ('ABERTA', 'EM_DEFESA')`,
    [receivedPixId],
  );
  return rows[0];
}

export async function updateInfraction(
  sql: Sql,
  id: number,
  change: {
    status: InfractionStatus;
    at: Date;
    defesa?: string;
    analise?: 'aceito' | 'rejeitado';
    defended?: boolean;
    finished?: boolean;
  },
): Promise<InfractionRow> {
  const { rows } = await sql.query<InfractionRow>(
    `update infractions set status = $2, updated_at = $3,
       defesa = coalesce($4, defesa), analise = coalesce($5, analise),
       defence_at = case when $6 then $3 else defence_at end,
       finished_at = case when $7 then $3 else finished_at end
     where id = $1 returning ${COLUMNS}`,
    [
      id,
      change.status,
      change.at,
      change.defesa ?? null,
      change.analise ?? null,
      change.defended ?? false,
      change.finished ?? false,
    ],
  );
  return rows[0];
}

export async function listInfractions(
  sql: Sql,
  f: { accountId: number; inicio: Date; fim: Date },
  page: number,
  pageSize: number,
): Promise<{ rows: InfractionRow[]; total: number }> {
  const where = 'account_id = $1 and opened_at >= $2 and opened_at <= $3';
  const params = [f.accountId, f.inicio, f.fim];
  const count = await sql.query<{ n: number }>(`select count(*)::int as n from infractions where ${where}`, params);
  const { rows } = await sql.query<InfractionRow>(
    `select ${COLUMNS} from infractions where ${where} order by opened_at, id limit $4 offset $5`,
    [...params, pageSize, page * pageSize],
  );
  return { rows, total: count.rows[0].n };
}
