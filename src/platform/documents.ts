/** CPF (11 digits) and CNPJ (14 digits) check-digit validation, as the Receita Federal defines them. */

export function isValidCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const digits = [...cpf].map(Number);
  const check = (length: number) => {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += digits[i] * (length + 1 - i);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return check(9) === digits[9] && check(10) === digits[10];
}

export function isValidCnpj(cnpj: string): boolean {
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const digits = [...cnpj].map(Number);
  const check = (length: number) => {
    const weights = length === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const sum = weights.reduce((acc, w, i) => acc + w * digits[i], 0);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  return check(12) === digits[12] && check(13) === digits[13];
}

/** Builds a valid document from a numeric prefix: used for generated demo accounts and fictitious payers. */
export function completeCpf(prefix9: string): string {
  for (let d1 = 0; d1 < 10; d1++)
    for (let d2 = 0; d2 < 10; d2++) {
      const candidate = `${prefix9}${d1}${d2}`;
      if (isValidCpf(candidate)) return candidate;
    }
  throw new RangeError(`no valid CPF for prefix ${prefix9}`);
}

export function completeCnpj(prefix12: string): string {
  for (let d1 = 0; d1 < 10; d1++)
    for (let d2 = 0; d2 < 10; d2++) {
      const candidate = `${prefix12}${d1}${d2}`;
      if (isValidCnpj(candidate)) return candidate;
    }
  throw new RangeError(`no valid CNPJ for prefix ${prefix12}`);
}

/**
 * A document as errors and reads show it: `***.456.789-**` for a CPF (the standard's example),
 * `**.345.678/0001-**` for a CNPJ; anything else (a malformed document) entirely starred.
 */
export function maskDocumentNumber(document: string): string {
  if (/^\d{11}$/.test(document)) return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
  if (/^[0-9A-Z]{14}$/.test(document))
    return `**.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-**`;
  return '*'.repeat(document.length);
}
