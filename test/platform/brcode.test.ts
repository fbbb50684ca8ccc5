// suite: database-independent
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasError, isDynamicPix, isStaticPix, parsePix } from 'pix-utils';
import {
  MERCHANT_CITY_MAX_CHARS,
  MERCHANT_NAME_MAX_CHARS,
  compositeBrCode,
  crc16Ccitt,
  dynamicBrCode,
  formatAmountCents,
  normalizeEmvText,
  parseBrCode,
  staticBrCode,
} from '../../src/platform/brcode.ts';

// Flips one character to a different one of the same class, so TLV structure survives.
function tamper(code: string, index: number): string {
  const c = code[index]!;
  const replacement = /\d/.test(c) ? String((Number(c) + 1) % 10) : c === 'A' ? 'B' : 'A';
  return code.slice(0, index) + replacement + code.slice(index + 1);
}

describe('crc16Ccitt', () => {
  it('matches the CCITT-FALSE check value', () => {
    assert.equal(crc16Ccitt('123456789'), '29B1');
  });

  it('pads to four uppercase hex digits', () => {
    assert.match(crc16Ccitt(''), /^[0-9A-F]{4}$/);
    assert.equal(crc16Ccitt(''), 'FFFF');
  });

  it('matches the Central Bank manual example', () => {
    const body =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000' +
      '5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304';
    assert.equal(crc16Ccitt(body), '1D3D');
  });
});

describe('dynamicBrCode', () => {
  const input = {
    locationUrl: 'https://pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
    merchantName: 'Loja Exemplo',
    merchantCity: 'Sao Paulo',
  };

  it('round-trips through pix-utils', () => {
    const code = dynamicBrCode(input);
    const parsed = parsePix(code);
    assert.ok(!hasError(parsed), hasError(parsed) ? parsed.message : '');
    assert.ok(isDynamicPix(parsed));
    assert.equal(parsed.url, 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25');
    assert.equal(parsed.merchantName, input.merchantName);
    assert.equal(parsed.merchantCity, input.merchantCity);
    assert.equal(parsed.merchantCategoryCode, '0000');
    assert.equal(parsed.transactionCurrency, '986');
    assert.equal(parsed.countryCode, 'BR');
  });

  it('is single use, has no amount and parses with a valid CRC', () => {
    const parsed = parseBrCode(dynamicBrCode(input));
    assert.equal(parsed.valid, true);
    assert.equal(parsed.fields.get('00'), '01');
    assert.equal(parsed.fields.get('01'), '12');
    assert.equal(parsed.fields.has('54'), false);
    assert.equal(parsed.merchantAccount.get('00'), 'br.gov.bcb.pix');
    assert.equal(parsed.merchantAccount.get('25'), 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25');
    assert.equal(parsed.additionalData.get('05'), '***');
    assert.deepEqual([...parsed.fields.keys()], ['00', '01', '26', '52', '53', '58', '59', '60', '62', '63']);
  });

  it('accepts a URL without scheme and rejects non-https schemes', () => {
    const bare = dynamicBrCode({ ...input, locationUrl: 'pix.example.com/qr/v2/abc' });
    assert.equal(parseBrCode(bare).merchantAccount.get('25'), 'pix.example.com/qr/v2/abc');
    assert.throws(() => dynamicBrCode({ ...input, locationUrl: 'http://pix.example.com/x' }), RangeError);
  });

  it('throws a RangeError naming the field when the URL is too long', () => {
    const locationUrl = `https://pix.example.com/${'a'.repeat(80)}`;
    assert.throws(
      () => dynamicBrCode({ ...input, locationUrl }),
      (err: unknown) => {
        assert.ok(err instanceof RangeError);
        assert.match(err.message, /merchant account information|location URL/);
        return true;
      },
    );
  });
});

describe('compositeBrCode', () => {
  // The Bacen API Pix 2.9.0 standard's own examples of dadosQR (recResponse3 and recResponse6).
  const JOURNEY_2 =
    '00020126180014br.gov.bcb.pix5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002630462C9';
  const JOURNEY_3 =
    '00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa35319489063047741';
  const merchant = { merchantName: 'Fulano de Tal', merchantCity: 'BRASILIA' };

  it('reproduces the standard examples of journeys 2 and 3 byte for byte', () => {
    assert.equal(
      compositeBrCode({
        recurrenceLocationUrl: 'pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002',
        ...merchant,
      }),
      JOURNEY_2,
    );
    assert.equal(
      compositeBrCode({
        recurrenceLocationUrl: 'https://pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa353194890',
        chargeLocationUrl: 'pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441',
        ...merchant,
      }),
      JOURNEY_3,
    );
  });

  it('parses ID 80 as the recurrence account', () => {
    const parsed = parseBrCode(JOURNEY_3);
    assert.ok(parsed.valid);
    assert.equal(parsed.recurrenceAccount.get('25'), 'pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa353194890');
    assert.equal(parsed.merchantAccount.get('25'), 'pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441');
    assert.equal(parseBrCode(JOURNEY_2).merchantAccount.get('25'), undefined);
  });
});

describe('staticBrCode', () => {
  it('round-trips key, amount, txid and info through pix-utils', () => {
    const input = {
      chave: '123e4567-e12b-12d1-a456-426655440000',
      amountCents: 1050,
      txid: 'PEDIDO123',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      infoAdicional: 'Pagamento do pedido',
    };
    const code = staticBrCode(input);
    const parsed = parsePix(code);
    assert.ok(!hasError(parsed), hasError(parsed) ? parsed.message : '');
    assert.ok(isStaticPix(parsed));
    assert.equal(parsed.pixKey, input.chave);
    assert.equal(parsed.transactionAmount, 10.5);
    assert.equal(parsed.txid, input.txid);
    assert.equal(parsed.infoAdicional, input.infoAdicional);
    assert.equal(parsed.merchantName, input.merchantName);
    assert.equal(parsed.merchantCity, input.merchantCity);

    const ours = parseBrCode(code);
    assert.equal(ours.valid, true);
    assert.equal(ours.fields.get('54'), '10.50');
    assert.equal(ours.fields.has('01'), false);
    assert.equal(ours.merchantAccount.get('01'), input.chave);
    assert.equal(ours.merchantAccount.get('02'), input.infoAdicional);
    assert.equal(ours.additionalData.get('05'), 'PEDIDO123');
  });

  it('counts field lengths in characters: a surrogate pair is one, a lone surrogate one', () => {
    const base = {
      chave: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    };
    const pair = staticBrCode({ ...base, infoAdicional: 'Pago \u{1F600}' });
    assert.ok(pair.includes('0206Pago \u{1F600}'), pair);
    assert.equal(parseBrCode(pair).merchantAccount.get('02'), 'Pago \u{1F600}');
    const lone = staticBrCode({ ...base, infoAdicional: 'Pago \uD83D' });
    assert.ok(lone.includes('0206Pago \uD83D'), lone);
  });

  it('reproduces the Central Bank manual example byte for byte', () => {
    const code = staticBrCode({
      chave: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    });
    assert.equal(
      code,
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000' +
        '5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
    );
    const parsed = parsePix(code);
    assert.ok(!hasError(parsed) && isStaticPix(parsed));
    assert.equal(parsed.txid, '***');
    assert.equal(parseBrCode(code).fields.has('54'), false);
  });

  it('formats amounts from integer cents', () => {
    assert.equal(formatAmountCents(1050), '10.50');
    assert.equal(formatAmountCents(1), '0.01');
    assert.equal(formatAmountCents(100), '1.00');
    assert.equal(formatAmountCents(999_999_999_999), '9999999999.99');
    assert.throws(() => formatAmountCents(1_000_000_000_000), RangeError);
    assert.throws(() => formatAmountCents(10.5), RangeError);
    assert.throws(() => formatAmountCents(0), RangeError);
    assert.throws(() => formatAmountCents(-1), RangeError);
  });

  it('rejects txids that are not up to 25 alphanumerics', () => {
    const base = { chave: 'a@b.com', merchantName: 'X', merchantCity: 'Y' };
    assert.ok(staticBrCode({ ...base, txid: 'A'.repeat(25) }));
    assert.throws(() => staticBrCode({ ...base, txid: 'A'.repeat(26) }), RangeError);
    assert.throws(() => staticBrCode({ ...base, txid: 'abc-123' }), RangeError);
  });

  it('throws a RangeError naming the field when the account template overflows', () => {
    const input = {
      chave: `${'x'.repeat(60)}@example.com`,
      infoAdicional: 'y'.repeat(30),
      merchantName: 'X',
      merchantCity: 'Y',
    };
    assert.throws(() => staticBrCode(input), /merchant account information \(ID 26\)/);
  });
});

describe('merchant name and city normalisation', () => {
  it('strips diacritics and truncates to the EMV limits', () => {
    const code = dynamicBrCode({
      locationUrl: 'https://pix.example.com/qr/v2/abc',
      merchantName: 'Padaria e Confeitaria São João da Esquina Ltda',
      merchantCity: 'São José dos Pinhais',
    });
    const parsed = parseBrCode(code);
    const name = parsed.fields.get('59')!;
    const city = parsed.fields.get('60')!;
    assert.equal(name, 'Padaria e Confeitaria Sao'); // 25 chars, trailing space trimmed
    assert.equal(city, 'Sao Jose dos Pi');
    assert.ok(name.length <= MERCHANT_NAME_MAX_CHARS);
    assert.equal(city.length, MERCHANT_CITY_MAX_CHARS);

    const viaPixUtils = parsePix(code);
    assert.ok(!hasError(viaPixUtils) && isDynamicPix(viaPixUtils));
    assert.equal(viaPixUtils.merchantName, name);
    assert.equal(viaPixUtils.merchantCity, city);
  });

  it('keeps only EMV Alphanumeric Special characters', () => {
    assert.equal(normalizeEmvText('Açaí & Cia™ — Ñandú\tLtda', 99), 'Acai & Cia Nandu Ltda');
    assert.equal(normalizeEmvText('Coração', 4), 'Cora');
  });

  it('rejects names that normalise to nothing', () => {
    assert.throws(
      () => staticBrCode({ chave: 'a@b.com', merchantName: '™™', merchantCity: 'Y' }),
      /merchant name \(ID 59\)/,
    );
  });
});

describe('parseBrCode', () => {
  const code = staticBrCode({
    chave: '+5511999998888',
    amountCents: 123456,
    txid: 'ABC123',
    merchantName: 'Maria',
    merchantCity: 'Recife',
  });

  it('detects a tampered character anywhere in the payload', () => {
    assert.equal(parseBrCode(code).valid, true);
    for (let i = 0; i < code.length; i++) {
      const tampered = tamper(code, i);
      let valid: boolean;
      try {
        valid = parseBrCode(tampered).valid;
      } catch {
        continue; // broke the TLV structure: also a rejection
      }
      assert.equal(valid, false, `tampering at ${i} went unnoticed`);
    }
  });

  it('detects a changed amount digit', () => {
    const tampered = code.replace('1234.56', '1234.57');
    assert.notEqual(tampered, code);
    assert.equal(parseBrCode(tampered).valid, false);
    assert.ok(hasError(parsePix(tampered)));
  });

  it('marks codes without a trailing CRC as invalid', () => {
    const body = code.slice(0, code.lastIndexOf('6304'));
    assert.equal(parseBrCode(body).valid, false);
  });

  it('throws on malformed TLV', () => {
    assert.throws(() => parseBrCode(code.slice(0, -1)), SyntaxError);
    assert.throws(() => parseBrCode('0002'), SyntaxError);
    assert.throws(() => parseBrCode('0X0201'), SyntaxError);
    assert.throws(() => parseBrCode('000201000201'), SyntaxError);
    assert.throws(() => parseBrCode('00020126040099'), SyntaxError);
  });
});
