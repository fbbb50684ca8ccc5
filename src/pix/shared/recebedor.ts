/**
 * The receiver as Bacen's due charges name it (DadosRecebedor): the account holder, CPF or CNPJ by the
 * document's length, and the holder's address, whose four parts Bacen requires. Due charges' answers
 * (CobVGerada, CobVCompleta), their payload (CobVPayload) and the split read show it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { findAccount, type AccountRow } from '../../accounts/store.ts';
import type { Sql } from '../../platform/db/database.ts';

export const Recebedor = Type.Object({
  cpf: Type.Optional(Type.String()),
  cnpj: Type.Optional(Type.String()),
  nome: Type.String(),
  logradouro: Type.String(),
  cidade: Type.String(),
  uf: Type.String(),
  cep: Type.String(),
});
export type Recebedor = Static<typeof Recebedor>;

export function recebedorOf(account: AccountRow): Recebedor {
  return {
    ...(account.documento.length === 14 ? { cnpj: account.documento } : { cpf: account.documento }),
    nome: account.nome,
    logradouro: account.logradouro,
    cidade: account.cidade,
    uf: account.uf,
    cep: account.cep,
  };
}

/** The receiver of the account's charges; the account exists (its charges reference it). */
export async function accountRecebedor(sql: Sql, accountId: number): Promise<Recebedor> {
  const account = await findAccount(sql, accountId);
  if (!account) throw new Error(`account ${accountId} does not exist`);
  return recebedorOf(account);
}
