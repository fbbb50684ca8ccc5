/**
 * The sandbox's other institution: every well-formed key and every bank account exists there, and the
 * amount decides the outcome as integrators know it (docs/sending.md). Installed on the context by the
 * sandbox extension; production keeps `noSettlementConnector` or the SPI boundary.
 *
 * A send leaves as a production node's does: a pacs.008 on the SPI boundary's outbound queue (`spiConnector`),
 * which the sandbox's institution in the node answers with a pacs.002 (spi-institution.ts).
 */
import { LIMITS } from '../platform/limits.ts';
import { formatAmount } from '../platform/money.ts';
import { SendRefused, type ExternalInstitution } from '../pix/send/external.ts';
import { spiConnector } from '../spi/connector.ts';

/**
 * The sandbox's one decision of an outbound send's outcome, by the amount rules integrators know: the pacs.002
 * of the in-node institution and of the SPI simulator process alike (its reason, the catalog's code and text).
 */
export function simulatedSendOutcome(
  amountCents: number,
): { credited: true } | { refused: { code: string; info: string } } {
  if (amountCents <= LIMITS.sandboxSendConfirmedMaxCents) return { credited: true };
  return {
    refused: {
      code: 'AM02',
      info: `sandbox: valores de 10.01 a ${formatAmount(LIMITS.sandboxSendRefusedMaxCents)} não são realizados`,
    },
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
  settle: spiConnector.settle,
};
