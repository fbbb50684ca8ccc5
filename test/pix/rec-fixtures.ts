/** Request bodies shared by the automatic Pix tests. */

/** A recurrence body as the standard's example: a monthly fixed amount from next month. */
export function recBody(extra: Record<string, unknown> = {}, devedor: Record<string, string> = {}) {
  return {
    vinculo: {
      objeto: 'Serviço de Streamming de Música.',
      contrato: '63100862',
      devedor: { cpf: '45164632481', nome: 'Fulano de Tal', ...devedor },
    },
    calendario: { dataInicial: '2099-01-10', periodicidade: 'MENSAL' },
    valor: { valorRec: '35.85' },
    politicaRetentativa: 'NAO_PERMITE',
    ...extra,
  };
}
