/**
 * The SPI boundary as the core's `ExternalInstitution` (docs/spi.md): installed on a production node with an SPI
 * gateway (PIXD_SPI_GATEWAY=on). A send to another institution is accepted at request time and, at its
 * settlement, leaves as a pacs.008 on the outbound queue; its pacs.002 concludes it (answers.ts).
 *
 * pixd does not reach the DICT (it is on the RSFN, like the SPI): the receiver of a send by key is identified
 * as the request names it, and the gateway resolves the key and completes the message before signing it.
 */
import type { ExternalInstitution } from '../platform/extensions.ts';
import { queueCreditTransfer } from './outbound.ts';

/** The receiver of a send by key as shown until the gateway's DICT lookup (the request's identificacao, if any). */
export const RECEIVER_BY_KEY = 'Recebedor em outra instituição';

export const spiConnector: ExternalInstitution = {
  accept({ favorecido }) {
    const conta = favorecido.contaBanco;
    if (conta) return { nome: conta.nome, ...(conta.cpf ? { cpf: conta.cpf } : { cnpj: conta.cnpj }) };
    return favorecido.identificacao ?? { nome: RECEIVER_BY_KEY };
  },
  async settle(sql, send, now) {
    await queueCreditTransfer(sql, send, now);
    return { answersLater: true };
  },
};
