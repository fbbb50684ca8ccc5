/**
 * Which journal movements each `tipoRegistros` key selects. A movement is one journal line on the
 * customer's available account (`customer:<id>:available`, the balance `saldo` shows); it is classified
 * by its entry's kind and its direction (credit: money in, debit: money out). The same kind can mean
 * two record types: a transfer between customers is `transferenciaEnviada` for the account it leaves and
 * `transferenciaRecebida` for the account it reaches.
 *
 * Kinds listed here that no feature writes yet simply produce no lines; a feature that starts moving
 * money under one of these names shows up in reports with no change here. Movements of kinds not listed
 * (judicial and MED blocks today) are never data lines but still count in the trailer (see layout.ts),
 * so every file reconciles with the balance.
 */

/** The interface's keys, in the order their lines are described (docs/reports-schedules.md). */
export const TIPO_REGISTROS = [
  'pixRecebido',
  'pixEnviadoChave',
  'pixEnviadoDadosBancarios',
  'estornoPixEnviado',
  'pixDevolucaoEnviada',
  'pixDevolucaoRecebida',
  'tarifaPixEnviado',
  'tarifaPixRecebido',
  'estornoTarifaPixEnviado',
  'saldoDiaAnterior',
  'saldoDia',
  'transferenciaEnviada',
  'transferenciaRecebida',
  'estornoTransferenciaEnviada',
  'tarifaTransferenciaEnviada',
  'estornoTarifaTransferenciaEnviada',
  'estornoTarifaPixRecebido',
] as const;

export type TipoRegistro = (typeof TIPO_REGISTROS)[number];

/** The two keys that are balances, not movements: the first and the last data line when selected. */
export const BALANCE_TYPES = ['saldoDiaAnterior', 'saldoDia'] as const satisfies readonly TipoRegistro[];

/** Journal kinds of sent Pix: the scheduled Pix scheduler and the sends' holds (src/pix/send) write them. */
export const SENT_PIX_KIND = { chave: 'pix_enviado_chave', dados_bancarios: 'pix_enviado_dados_bancarios' } as const;

type Direction = { credit?: TipoRegistro; debit?: TipoRegistro };

/** Journal kind -> record type by direction. */
const BY_KIND: Record<string, Direction> = {
  pix_recebido: { credit: 'pixRecebido' },
  [SENT_PIX_KIND.chave]: { debit: 'pixEnviadoChave' },
  [SENT_PIX_KIND.dados_bancarios]: { debit: 'pixEnviadoDadosBancarios' },
  estorno_pix_enviado: { credit: 'estornoPixEnviado' },
  pix_devolvido: { debit: 'pixDevolucaoEnviada' },
  pix_devolucao_recebida: { credit: 'pixDevolucaoRecebida' },
  tarifa_pix_enviado: { debit: 'tarifaPixEnviado' },
  tarifa_pix_recebido: { debit: 'tarifaPixRecebido' },
  estorno_tarifa_pix_enviado: { credit: 'estornoTarifaPixEnviado' },
  estorno_tarifa_pix_recebido: { credit: 'estornoTarifaPixRecebido' },
  split_repasse: { debit: 'transferenciaEnviada', credit: 'transferenciaRecebida' },
  split_devolucao: { debit: 'transferenciaEnviada', credit: 'transferenciaRecebida' },
  transferencia: { debit: 'transferenciaEnviada', credit: 'transferenciaRecebida' },
  estorno_transferencia: { credit: 'estornoTransferenciaEnviada' },
  tarifa_transferencia: { debit: 'tarifaTransferenciaEnviada' },
  estorno_tarifa_transferencia: { credit: 'estornoTarifaTransferenciaEnviada' },
};

/** The record type of a movement, or undefined when no key describes it. */
export function recordTypeOf(kind: string, amountCents: number): TipoRegistro | undefined {
  const direction = BY_KIND[kind];
  return direction && (amountCents > 0 ? direction.credit : direction.debit);
}

/** The selected keys, in TIPO_REGISTROS order: stored comma-joined, it identifies "the same parameters". */
export function selectedTypes(tipoRegistros: Partial<Record<TipoRegistro, boolean>>): TipoRegistro[] {
  return TIPO_REGISTROS.filter((t) => tipoRegistros[t] === true);
}
