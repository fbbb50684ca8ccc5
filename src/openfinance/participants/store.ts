/**
 * The payer institutions an enrolment may name (`pagador.idParticipante`). The sandbox has a fixed handful of
 * fictitious ones (below, ISPBs in the 9999901x range no real participant uses); another environment reads the
 * operator-managed table `of_participants`.
 */
import type { Sql } from '../../platform/db/database.ts';

export interface Participant {
  identificador: string;
  ispb: string;
  nome: string;
  descricao: string;
  portal: string;
  logo: string;
  cnpj: string;
}

/** A placeholder logo: the institution's initials on its colour, inline so the page loads nothing external. */
function logo(initials: string, colour: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" rx="12" fill="${colour}"/><text x="32" y="41" font-family="sans-serif" font-size="24" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

const fictitious = (
  identificador: string,
  ispb: string,
  nome: string,
  initials: string,
  colour: string,
  cnpj: string,
): Participant => ({
  identificador,
  ispb,
  nome,
  descricao: `${nome}: instituição fictícia do sandbox do pixd.`,
  portal: 'https://sandbox.invalid/',
  logo: logo(initials, colour),
  cnpj,
});

export const SANDBOX_PARTICIPANTS: readonly Participant[] = [
  fictitious('4b6b9a0e-0c5f-4a51-9b1e-8d7b1c3e0011', '99999011', 'Banco Aurora', 'BA', '#8a3ffc', '11222333000181'),
  fictitious(
    '0f3c2d6a-7b1e-4f0a-8e52-2a9c4d1b0012',
    '99999012',
    'Cooperativa Horizonte',
    'CH',
    '#0f62fe',
    '44555666000181',
  ),
  fictitious('a1d5e7c9-3f2b-4c6d-9e8f-5b4a3c2d0013', '99999013', 'Banco Maré', 'BM', '#007d79', '77888999000181'),
  fictitious('c9e8d7f6-5a4b-4c3d-8e2f-1a0b9c8d0014', '99999014', 'Fintech Cerrado', 'FC', '#b28600', '12345678000195'),
];

export async function listParticipants(sql: Sql, sandbox: boolean): Promise<Participant[]> {
  if (sandbox) return [...SANDBOX_PARTICIPANTS];
  const { rows } = await sql.query<Participant>('select * from of_participants order by nome, identificador');
  return rows;
}

export async function findParticipant(sql: Sql, sandbox: boolean, identificador: string) {
  if (sandbox) return SANDBOX_PARTICIPANTS.find((p) => p.identificador === identificador);
  const { rows } = await sql.query<Participant>('select * from of_participants where identificador = $1', [
    identificador,
  ]);
  return rows[0];
}

/** The operator's list (outside the sandbox): one institution in or out. */
export async function saveParticipant(sql: Sql, p: Participant): Promise<void> {
  await sql.query(
    `insert into of_participants (identificador, ispb, nome, descricao, portal, logo, cnpj)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (identificador) do update set ispb = excluded.ispb, nome = excluded.nome,
       descricao = excluded.descricao, portal = excluded.portal, logo = excluded.logo, cnpj = excluded.cnpj`,
    [p.identificador, p.ispb, p.nome, p.descricao, p.portal, p.logo, p.cnpj],
  );
}

export async function removeParticipant(sql: Sql, identificador: string): Promise<boolean> {
  const { rowCount } = await sql.query('delete from of_participants where identificador = $1', [identificador]);
  return (rowCount ?? 0) > 0;
}
