/**
 * How a journal movement is described in a CNAB statement: FEBRABAN's category (E012), pixd's code of the
 * movement (E013) and its history text (E014). Movements are classified as the reconciliation report does
 * (`recordTypeOf`, src/pix/reports/record-types.ts), so both read the same names; what no report key
 * describes (judicial and MED blocks, their releases) is a notified movement (104 / 205), never left out:
 * every statement reconciles with the balance.
 */
import { recordTypeOf, type TipoRegistro } from '../../pix/reports/record-types.ts';

export interface MovementDescription {
  category: string;
  code: string;
  history: string;
}

/** FEBRABAN categories: 103/204 reversals, 105 fees, 117/213 between accounts, 120/209 interbank transfers. */
const BY_TYPE: Record<Exclude<TipoRegistro, 'saldoDiaAnterior' | 'saldoDia'>, MovementDescription> = {
  pixRecebido: { category: '209', code: 'PIXR', history: 'PIX RECEBIDO' },
  pixEnviadoChave: { category: '120', code: 'PIXE', history: 'PIX ENVIADO CHAVE' },
  pixEnviadoDadosBancarios: { category: '120', code: 'PIXB', history: 'PIX ENVIADO DADOS BANCARIOS' },
  estornoPixEnviado: { category: '204', code: 'EPIX', history: 'ESTORNO PIX ENVIADO' },
  pixDevolucaoEnviada: { category: '120', code: 'DEVE', history: 'DEVOLUCAO PIX ENVIADA' },
  pixDevolucaoRecebida: { category: '209', code: 'DEVR', history: 'DEVOLUCAO PIX RECEBIDA' },
  tarifaPixEnviado: { category: '105', code: 'TPXE', history: 'TARIFA PIX ENVIADO' },
  tarifaPixRecebido: { category: '105', code: 'TPXR', history: 'TARIFA PIX RECEBIDO' },
  estornoTarifaPixEnviado: { category: '204', code: 'ETPE', history: 'ESTORNO TARIFA PIX ENVIADO' },
  estornoTarifaPixRecebido: { category: '204', code: 'ETPR', history: 'ESTORNO TARIFA PIX RECEBIDO' },
  transferenciaEnviada: { category: '117', code: 'TRFE', history: 'TRANSFERENCIA ENVIADA' },
  transferenciaRecebida: { category: '213', code: 'TRFR', history: 'TRANSFERENCIA RECEBIDA' },
  estornoTransferenciaEnviada: { category: '204', code: 'ETRF', history: 'ESTORNO TRANSFERENCIA' },
  tarifaTransferenciaEnviada: { category: '105', code: 'TTRF', history: 'TARIFA TRANSFERENCIA' },
  estornoTarifaTransferenciaEnviada: { category: '204', code: 'ETTR', history: 'ESTORNO TARIFA TRANSFERENCIA' },
};

const OTHER_DEBIT: MovementDescription = { category: '104', code: 'OUTD', history: 'LANCAMENTO AVISADO' };
const OTHER_CREDIT: MovementDescription = { category: '205', code: 'OUTC', history: 'LANCAMENTO AVISADO' };

export function describeMovement(kind: string, amountCents: number): MovementDescription {
  const type = recordTypeOf(kind, amountCents);
  if (type && type !== 'saldoDiaAnterior' && type !== 'saldoDia') return BY_TYPE[type];
  return amountCents < 0 ? OTHER_DEBIT : OTHER_CREDIT;
}
