/** A payment the receiving side refuses; `code` is stable for clients and tests. */
export class PaymentRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
