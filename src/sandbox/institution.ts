/**
 * The sandbox's other institution: every well-formed key and every bank account exists there, and the
 * amount decides the outcome as integrators know it (docs/sending.md). Installed on the context by the
 * sandbox extension; production keeps `noSettlementConnector`.
 */
import { LIMITS } from '../platform/limits.ts';
import { formatAmount } from '../platform/money.ts';
import { SendRefused, type ExternalInstitution } from '../pix/send/external.ts';

/**
 * The sandbox's one decision of an outbound send's outcome, by the amount rules integrators know: every path
 * of the simulated other institution asks it (sandbox faults plug in here).
 */
export function simulatedSendOutcome(amountCents: number): { credited: true } | { refused: string } {
  if (amountCents <= LIMITS.sandboxSendConfirmedMaxCents) return { credited: true };
  return {
    refused: `Pix recusado pela instituição do recebedor (sandbox: valores de 10.01 a ${formatAmount(LIMITS.sandboxSendRefusedMaxCents)} não são realizados).`,
  };
}

export const simulatedInstitution: ExternalInstitution = {
  accept({ amountCents, favorecido }) {
    if (amountCents > LIMITS.sandboxSendRefusedMaxCents)
      throw new SendRefused(
        'envio_recusado',
        `Sandbox: Pix acima de ${formatAmount(LIMITS.sandboxSendRefusedMaxCents)} é recusado já na requisição.`,
        'valor',
      );
    const conta = favorecido.contaBanco;
    if (conta) return { nome: conta.nome, ...(conta.cpf ? { cpf: conta.cpf } : { cnpj: conta.cnpj }) };
    return { nome: 'Favorecido da instituição simulada', cpf: '12345678909' };
  },
  async settle(_sql, { amountCents }) {
    return simulatedSendOutcome(amountCents);
  },
};
