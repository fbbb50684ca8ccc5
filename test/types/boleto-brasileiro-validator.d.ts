/** The part of boleto-brasileiro-validator 1.0's API the tests use (a CommonJS package that ships no types). */
declare module 'boleto-brasileiro-validator' {
  const validator: {
    /** Any bill code (bank or arrecadação, barcode or linha); `strict` also checks a linha's field DVs. */
    boleto(code: string, strict?: boolean): boolean;
  };
  export default validator;
}
