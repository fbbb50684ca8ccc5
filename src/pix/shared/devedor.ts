/** Semantic rules on a payer (`devedor`) that a schema cannot express. */
import { isValidCnpj, isValidCpf } from '../../platform/documents.ts';
import type { Violation } from '../../platform/errors.ts';

export interface DevedorLike {
  cpf?: string;
  cnpj?: string;
  nome?: string;
}

export function devedorViolations(devedor: DevedorLike | undefined, root: string, required: boolean): Violation[] {
  const at = `${root}.devedor`;
  if (!devedor) return required ? [{ property: at, reason: 'devedor é obrigatório.' }] : [];
  const out: Violation[] = [];
  if (devedor.cpf && devedor.cnpj) out.push({ property: at, reason: 'informe cpf ou cnpj, não ambos.' });
  if (!devedor.cpf && !devedor.cnpj && (devedor.nome || required))
    out.push({ property: at, reason: 'nome exige cpf ou cnpj.' });
  if ((devedor.cpf || devedor.cnpj) && !devedor.nome)
    out.push({ property: `${at}.nome`, reason: 'nome é obrigatório quando cpf ou cnpj é informado.' });
  if (devedor.cpf && !isValidCpf(devedor.cpf))
    out.push({ property: `${at}.cpf`, reason: 'CPF inválido (dígitos verificadores).', value: devedor.cpf });
  if (devedor.cnpj && !isValidCnpj(devedor.cnpj))
    out.push({ property: `${at}.cnpj`, reason: 'CNPJ inválido (dígitos verificadores).', value: devedor.cnpj });
  return out;
}
