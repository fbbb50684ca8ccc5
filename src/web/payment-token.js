/*
 * pixd payment-token library (browser). Served by pixd as an ES module (/web/payment-token.mjs, default export
 * and named `PixdPayment`) and as a plain script (/web/payment-token.js, global `PixdPayment`). The API follows
 * payment-token-efi's CreditCard: setAccount(payee_code), setEnvironment('production'|'sandbox'),
 * setCardNumber + verifyCardBrand, setBrand + setTotal + getInstallments, setCreditCardData + getPaymentToken.
 * Card data is encrypted here, with the service's RSA public key (PKCS#1 v1.5, as payment-token-efi does), and
 * only the ciphertext leaves the browser. Errors are thrown as {code, error, error_description}.
 * The brand table is injected by the server from src/billing/tokens/brands.ts, so both sides agree.
 */
const BRAND_PATTERNS = __BRAND_PATTERNS__;
const INVALID_BRAND_CODE = __INVALID_BRAND_CODE__;
const SCRIPT_URL = __SCRIPT_URL__;

function fail(code, error, description) {
  const e = new Error(description);
  Object.assign(e, { code, error, error_description: description });
  throw e;
}

function detectBrand(number) {
  const digits = String(number).replace(/\s+/g, '');
  if (!/^\d+$/.test(digits)) fail(400, 'invalid_card_number', 'O número do cartão deve conter somente dígitos.');
  for (const [brand, pattern] of BRAND_PATTERNS) if (new RegExp(pattern).test(digits)) return brand;
  return fail(
    INVALID_BRAND_CODE,
    'invalid_brand',
    'Bandeira não identificada ou não aceita: visa, mastercard, amex, diners, elo.',
  );
}

// --- RSA PKCS#1 v1.5 encryption with BigInt (WebCrypto offers only RSA-OAEP) ---
function base64ToBytes(b64) {
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
function bytesToBase64(bytes) {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
/** Reads one DER element at `at`: {tag, start (of contents), end}. */
function der(bytes, at) {
  const tag = bytes[at];
  let length = bytes[at + 1];
  let start = at + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + bytes[start + i];
    start += n;
  }
  return { tag, start, end: start + length };
}
function toBigInt(bytes) {
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return BigInt('0x' + (hex || '0'));
}
/** SubjectPublicKeyInfo (base64 DER) → {n, e, size in bytes}. */
function parsePublicKey(b64) {
  const bytes = base64ToBytes(b64.replace(/-----[^-]+-----|\s+/g, ''));
  const spki = der(bytes, 0);
  const algorithm = der(bytes, spki.start);
  const bitString = der(bytes, algorithm.end);
  const rsaKey = der(bytes, bitString.start + 1); // skip the unused-bits byte
  const modulus = der(bytes, rsaKey.start);
  const exponent = der(bytes, modulus.end);
  const nBytes = bytes.slice(modulus.start, modulus.end);
  const size = nBytes[0] === 0 ? nBytes.length - 1 : nBytes.length;
  return { n: toBigInt(nBytes), e: toBigInt(bytes.slice(exponent.start, exponent.end)), size };
}
function modPow(base, exponent, modulus) {
  let result = 1n;
  base %= modulus;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus;
    exponent >>= 1n;
    base = (base * base) % modulus;
  }
  return result;
}
function encryptPkcs1(publicKeyB64, text) {
  const { n, e, size } = parsePublicKey(publicKeyB64);
  const message = new TextEncoder().encode(text);
  if (message.length > size - 11) fail(400, 'invalid_card_data', 'Dados do cartão longos demais para a chave.');
  const block = new Uint8Array(size);
  block[1] = 2;
  const padding = block.subarray(2, size - message.length - 1);
  crypto.getRandomValues(padding);
  for (let i = 0; i < padding.length; i++)
    while (padding[i] === 0) padding[i] = crypto.getRandomValues(new Uint8Array(1))[0];
  block.set(message, size - message.length);
  const c = modPow(toBigInt(block), e, n)
    .toString(16)
    .padStart(size * 2, '0');
  return bytesToBase64(Uint8Array.from(c.match(/../g), (h) => parseInt(h, 16)));
}

// --- The API ---
async function getJson(url) {
  const response = await fetch(url, { method: 'GET' });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || body.code !== 200)
    fail(
      body.code ?? response.status,
      body.error ?? 'request_error',
      body.error_description ?? `HTTP ${response.status}`,
    );
  return body.data;
}

function validCardData(data) {
  if (!data || typeof data !== 'object') fail(400, 'invalid_card_data', 'Informe os dados do cartão.');
  for (const key of ['brand', 'number', 'cvv', 'expirationMonth', 'expirationYear']) {
    if (typeof data[key] !== 'string' || !data[key])
      fail(400, 'invalid_card_data', `O atributo [${key}] é obrigatório.`);
  }
  const number = data.number.replace(/\s+/g, '');
  if (detectBrand(number) !== data.brand.toLowerCase())
    fail(INVALID_BRAND_CODE, 'invalid_brand', 'A bandeira não corresponde ao número do cartão.');
  const card = {
    brand: data.brand.toLowerCase(),
    number,
    cvv: data.cvv,
    expiration_month: data.expirationMonth,
    expiration_year: data.expirationYear,
    reuse: data.reuse === true,
  };
  if (data.holderName) card.holder_name = data.holderName;
  if (data.holderDocument) card.holder_document = data.holderDocument.replace(/\D/g, '');
  return card;
}

const CreditCard = {
  baseUrl: SCRIPT_URL ? new URL(SCRIPT_URL).origin : '',
  account: null,
  environment: 'sandbox',
  cardNumber: null,
  brand: null,
  total: null,
  creditCard: null,
  /** Where pixd answers (defaults to the origin this library was served from). */
  setBaseUrl(url) {
    this.baseUrl = String(url).replace(/\/+$/, '');
    return this;
  },
  setAccount(payeeCode) {
    if (typeof payeeCode !== 'string' || !/^[a-zA-Z0-9]{32}$/.test(payeeCode))
      fail(400, 'invalid_account', 'Identificador de conta inválido.');
    this.account = payeeCode;
    return this;
  },
  setEnvironment(environment) {
    if (!['production', 'sandbox'].includes(environment))
      fail(400, 'invalid_environment', 'Ambiente: "production" ou "sandbox".');
    this.environment = environment;
    return this;
  },
  setCardNumber(number) {
    this.cardNumber = number;
    return this;
  },
  async verifyCardBrand() {
    return detectBrand(this.cardNumber ?? '');
  },
  setBrand(brand) {
    this.brand = String(brand).toLowerCase();
    return this;
  },
  setTotal(total) {
    if (!Number.isInteger(total) || total < 1)
      fail(400, 'invalid_total', 'O total deve ser um inteiro positivo em centavos.');
    this.total = total;
    return this;
  },
  async getInstallments() {
    const query = new URLSearchParams({ brand: this.brand ?? '', total: String(this.total) });
    return getJson(`${this.baseUrl}/v1/installments/${encodeURIComponent(this.account)}/jsonp?${query}`);
  },
  setCreditCardData(data) {
    this.creditCard = validCardData(data);
    return this;
  },
  async getPaymentToken() {
    if (!this.account) fail(400, 'invalid_account', 'Chame setAccount antes.');
    const publicKey = await getJson(`${this.baseUrl}/v1/pubkey?code=${encodeURIComponent(this.account)}`);
    const data = encryptPkcs1(publicKey, JSON.stringify(this.creditCard));
    return getJson(
      `${this.baseUrl}/v1/card/${encodeURIComponent(this.account)}/jsonp?${new URLSearchParams({ data })}`,
    );
  },
};

const PixdPayment = { CreditCard };
