/** A payment the receiving side refuses; `code` is stable for clients and tests. */
export class PaymentRefused<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}
