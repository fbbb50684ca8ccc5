/**
 * What a payment is asked to pay, as the engine (engine.ts), the participant holds (holds.ts) and the sends'
 * store read it. Its own module: those import one another's functions, and the types must not close a cycle.
 */
import type { PixOrigin } from '../received/store.ts';

export type PaymentTarget =
  /** A charge by its receiver and txid (sandbox pay by txid). */
  | { kind: 'charge'; accountId: number; txid: string }
  /** A dynamic QR code: the location token inside its URL. */
  | { kind: 'location'; token: string }
  /** A key, from a static QR code (optionally tied to a txid) or a plain transfer. */
  | { kind: 'key'; chave: string; txid?: string; fromStaticQrCode?: boolean }
  /** Bank data (agência/conta) instead of a key: the account number; accepted only with receberSemChave. */
  | { kind: 'account'; conta: string };

export interface IncomingPix {
  target: PaymentTarget;
  /** Undefined: the amount the charge asks at the moment of payment (a payer paying a charge as shown). */
  amountCents?: number;
  payer: { nome: string; cpf?: string; cnpj?: string };
  infoPagador?: string;
  origin: PixOrigin;
  /** Given by the payer's institution (participant confirmations); generated otherwise. */
  endToEndId?: string;
}
