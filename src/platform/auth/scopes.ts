/**
 * Every scope the interface names. The demo application holds them all.
 * Where the spec lists an odd scope ("as listed"), the route uses the consistent one; see docs/decisions.md.
 */
export const SCOPES = [
  'cob.write',
  'cob.read',
  'cobv.write',
  'cobv.read',
  'lotecobv.write',
  'lotecobv.read',
  'pix.write',
  'pix.read',
  'payloadlocation.write',
  'payloadlocation.read',
  'webhook.write',
  'webhook.read',
  'rec.write',
  'rec.read',
  'solicrec.write',
  'solicrec.read',
  'cobr.write',
  'cobr.read',
  'payloadlocationrec.write',
  'payloadlocationrec.read',
  'webhookrec.write',
  'webhookrec.read',
  'webhookcobr.write',
  'webhookcobr.read',
  'gn.split.write',
  'gn.split.read',
  'gn.pix.evp.write',
  'gn.pix.evp.read',
  'gn.balance.read',
  /** Sending Pix (PUT /v2/gn/pix/:idEnvio, /qrcode) and reading sent Pix, as the SDK names them. */
  'pix.send',
  'gn.pix.send.read',
  /** MED infractions: list, and defend. */
  'gn.infractions.read',
  'gn.infractions.write',
  'gn.settings.write',
  'gn.settings.read',
  'gn.reports.write',
  'gn.reports.read',
  'gn.registration.webhook.write',
  'gn.registration.webhook.read',
  /**
   * Opening simplified accounts (/v1/conta-simplificada) and their certificates; reading their credentials.
   * Granted by the operator only (not among the defaults): docs/simplified-accounts.md.
   */
  'gn.registration.write',
  'gn.registration.read',
  'gn.opb.automatic.consent.write',
  'gn.opb.automatic.consent.read',
  'gn.opb.automatic.payment.write',
  'gn.opb.automatic.payment.read',
  /** Open Finance Pix payments (immediate, scheduled, recurring, biometric) and biometric links. */
  'gn.opb.payment.pix.send',
  'gn.opb.payment.pix.read',
  'gn.opb.payment.pix.refund',
  'gn.opb.payment.pix.cancel',
  /** Paying bills (docs/bill-payments.md): read a barcode, pay one and read payments, the webhook. */
  'gn.barcode.read',
  'gn.barcode.pay.write',
  'gn.barcode.pay.read',
  'payment.webhook.write',
  'payment.webhook.read',
  /** CNAB statements (/v1/extrato-cnab): schedules; files and schedules read; the SFTP key. */
  'gn.cnab-statement.statement.write',
  'gn.cnab-statement.statement.read',
  'gn.cnab-statement.keys.write',
  'devolutionRequest.ind.write',
  'keys.ind.write',
  'pix.ind.write',
  'pix.ind.read',
  'charge.write',
  'charge.read',
  /**
   * pixd's own: the sandbox tools (/sandbox/*) move money and the service clock, so they are not for every
   * application. The demo application holds it; other accounts only when granted explicitly.
   */
  'sandbox.write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** The indirect participant's scopes (`*.ind.*`): only applications of a participant account may hold them. */
export const PARTICIPANT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.includes('.ind.'));

export const isParticipantScope = (scope: string) => (PARTICIPANT_SCOPES as readonly string[]).includes(scope);

/** What a new account's application holds when no scopes are named: every scope but the sandbox tools (and
 * the participant scopes, unless the account is a participant). */
/** Scopes an application holds only when the operator names them: opening accounts creates credentials. */
export const OPERATOR_GRANTED_SCOPES: readonly Scope[] = ['gn.registration.write', 'gn.registration.read'];

export const DEFAULT_ACCOUNT_SCOPES: readonly Scope[] = SCOPES.filter(
  (s) => s !== 'sandbox.write' && !isParticipantScope(s) && !OPERATOR_GRANTED_SCOPES.includes(s),
);

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
