/**
 * The seam to other institutions. A Pix whose receiver is not an account of this pixd leaves through an
 * `ExternalInstitution`: asked at request time whether it takes the payment (and who the receiver is, as
 * its directory knows it), and at settlement whether the payment went through.
 *
 * The sandbox replaces it (`AppContext.externalInstitution`) with a simulated institution with the amount
 * rules integrators know (src/sandbox/institution.ts).
 * Production without an SPI gateway (PIXD_SPI_GATEWAY) refuses sends to other institutions with a named error;
 * with one, src/spi/connector.ts implements this interface: the send leaves as a pacs.008 that the gateway
 * collects, and its pacs.002 settles it. docs/sending.md, docs/spi.md.
 */
import type { GroupErrorName, StatusOf } from '../../platform/errors.ts';
import type { ExternalInstitution } from '../../platform/extensions.ts';

export type { ExternalInstitution } from '../../platform/extensions.ts';

export class SendRefused extends Error {
  constructor(
    /** Its error name in the named format (`saldo_insuficiente`); in the problem format, the violation's reason. */
    readonly code: GroupErrorName<'named'>,
    message: string,
    /** The request property the refusal is about (a violation's `propriedade`). */
    readonly property: string,
    readonly status: StatusOf<'PixEnvioInvalido'> = 400,
  ) {
    super(message);
  }
}

/** Production until a settlement connector exists. */
export const noSettlementConnector: ExternalInstitution = {
  accept() {
    throw new SendRefused(
      'destino_externo_indisponivel',
      'O recebedor não é cliente desta instituição e o envio a outras instituições ainda não está disponível.',
      'favorecido',
      422,
    );
  },
  async settle() {
    return { refused: 'Envio a outras instituições indisponível.' };
  },
};
