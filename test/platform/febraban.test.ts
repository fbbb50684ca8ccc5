// suite: database-independent
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import validator from 'boleto-brasileiro-validator';
import {
  BarcodeError,
  type BarcodeDefect,
  arrecadacaoBarcodeToLine,
  arrecadacaoModulo11,
  bankBarcode,
  bankBarcodeToLine,
  bankLineToBarcode,
  bankModulo11,
  dueDateFactor,
  dueDateFromFactor,
  modulo10,
  parseBill,
} from '../../src/platform/febraban.ts';

const TODAY = '2026-11-27';
/** The independent check: boleto-brasileiro-validator, strict (field and block DVs too). */
const independentlyValid = (code: string) => validator.boleto(code, true);

/** Replaces the digit at `index` (counted over digits only) with the next one, keeping separators. */
function flipDigit(code: string, index: number): string {
  const digits = code.replace(/\D/g, '');
  return digits.slice(0, index) + String((Number(digits[index]) + 1) % 10) + digits.slice(index + 1);
}

function assertDefect(code: string, defect: BarcodeDefect): void {
  assert.throws(
    () => parseBill(code, TODAY),
    (error: unknown) => error instanceof BarcodeError && error.defect === defect,
    `${code} should be refused for ${defect}`,
  );
}

describe('check digits', () => {
  it('modulo 10 sums the digits of two-digit products', () => {
    // field 1 of the Banco do Brasil example linha 00190.50095 40144.816069 …: 001905009, DV 5
    assert.equal(modulo10('001905009'), 5);
    assert.equal(modulo10('0'), 0);
    assert.equal(modulo10('18'), 2); // 8×2=16 → 1+6=7, 1×1=1: 8, DV 2
  });

  it("the bank's modulo 11 never yields 0, the arrecadação one maps 10 and 11 to 0", () => {
    // remainders 0 and 1 (11 − r = 11, 10) are 1 for banks and 0 for arrecadação; 11 − 10 = 1 for both
    assert.equal(bankModulo11('0'), 1); // remainder 0
    assert.equal(arrecadacaoModulo11('0'), 0);
    assert.equal(bankModulo11('5'), 1); // 5×2=10 remainder 10 → 11−10=1
    assert.equal(arrecadacaoModulo11('5'), 1);
    assert.equal(bankModulo11('6'), 1); // 12 remainder 1 → 10 → 1
    assert.equal(arrecadacaoModulo11('6'), 0);
    assert.equal(bankModulo11('1'), 9); // 2 → 11−2
    assert.equal(arrecadacaoModulo11('1'), 9);
  });
});

describe('the due-date factor', () => {
  it('counts from 1997-10-07 up to 9999 on 2025-02-21, restarts at 1000 on 2025-02-22, then every 9000 days', () => {
    // FEBRABAN's operating manual: 1000 = 2000-07-03, 5316 = 2012-04-27, 9999 = 2025-02-21 (the limit)
    assert.equal(dueDateFactor('2000-07-03'), 1000);
    assert.equal(dueDateFactor('2000-07-04'), 1001);
    assert.equal(dueDateFactor('2012-04-27'), 5316);
    assert.equal(dueDateFactor('2025-02-20'), 9998);
    assert.equal(dueDateFactor('2025-02-21'), 9999);
    assert.equal(dueDateFactor('2025-02-22'), 1000);
    assert.equal(dueDateFactor('2025-02-23'), 1001);
    assert.equal(dueDateFactor('2049-10-13'), 9999); // the next limit, as FEBRABAN announced it
    assert.equal(dueDateFactor('2049-10-14'), 1000);
    assert.throws(() => dueDateFactor('2000-07-02'), RangeError);
  });

  it('decodes a factor to the date of its cycle nearest the reference date', () => {
    assert.equal(dueDateFromFactor(1000, '2010-01-01'), '2000-07-03');
    assert.equal(dueDateFromFactor(1000, TODAY), '2025-02-22');
    assert.equal(dueDateFromFactor(9999, '2025-02-22'), '2025-02-21'); // yesterday, not 2049
    assert.equal(dueDateFromFactor(5316, '2013-01-01'), '2012-04-27');
    assert.equal(dueDateFromFactor(dueDateFactor('2026-12-10'), TODAY), '2026-12-10');
    assert.equal(dueDateFromFactor(dueDateFactor('2038-06-01'), TODAY), '2038-06-01'); // 11+ years ahead
    assert.equal(dueDateFromFactor(dueDateFactor('2015-01-05'), TODAY), '2015-01-05'); // 11+ years overdue
    assert.equal(dueDateFromFactor(0, TODAY), null);
    assert.equal(dueDateFromFactor(999, TODAY), null); // first digit 0: no due date
    // every date of the next 9000 days round-trips from today's reference
    for (let offset = -4500; offset < 4500; offset += 37) {
      const date = new Date(Date.parse(`${TODAY}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
      assert.equal(dueDateFromFactor(dueDateFactor(date), TODAY), date);
    }
  });
});

describe('bank boletos', () => {
  it('builds a barcode and linha digitável that an independent library validates', () => {
    const seeded = (i: number) => String((i * 7_919_993_021) % 10 ** 12).padStart(12, '0');
    for (let i = 1; i <= 200; i++) {
      const freeField = (seeded(i) + seeded(i + 1) + seeded(i + 2)).slice(0, 25);
      const amountCents = (i * 104_729) % 1_000_000_000;
      const dueDate = new Date(Date.parse('2024-01-01T00:00:00Z') + i * 19 * 86_400_000).toISOString().slice(0, 10);
      const barcode = bankBarcode({ bankCode: '364', dueDate, amountCents, freeField });
      const line = bankBarcodeToLine(barcode);
      assert.equal(barcode.length, 44);
      assert.equal(line.length, 47);
      assert.ok(independentlyValid(barcode), barcode);
      assert.ok(independentlyValid(line), line);
      assert.equal(bankLineToBarcode(line), barcode);
      for (const code of [barcode, line]) {
        const bill = parseBill(code, '2024-06-01');
        assert.deepEqual(bill, {
          kind: 'bank',
          barcode,
          linhaDigitavel: line,
          bankCode: '364',
          currencyCode: '9',
          dueDateFactor: dueDateFactor(dueDate),
          dueDate,
          amountCents,
          freeField,
        });
      }
    }
  });

  it('reads public examples: a Bradesco linha of R$ 3,700.00 and a Caixa barcode across the 2025 restart', () => {
    // boleto-brasileiro-validator's README example
    const bradesco = parseBill('23793.38128 60007.827136 95000.063305 9 75520000370000', TODAY);
    assert.equal(bradesco.kind, 'bank');
    assert.equal(bradesco.kind === 'bank' && bradesco.bankCode, '237');
    assert.equal(bradesco.kind === 'bank' && bradesco.amountCents, 370_000);
    assert.equal(bradesco.kind === 'bank' && bradesco.dueDate, '2018-06-11'); // 1997-10-07 + 7552 days
    assert.equal(bradesco.barcode, '23799755200003700003381260007827139500006330');
    // @mrmgomes/boleto-utils' test example: factor 8981, R$ 214.03; 2022 before the restart, 2046 after
    const caixa = '10499898100000214032006561000100040099726390';
    const line = '10492006506100010004200997263900989810000021403';
    assert.equal(bankBarcodeToLine(caixa), line);
    assert.equal(parseBill(caixa, TODAY).kind === 'bank' && parseBill(caixa, TODAY).linhaDigitavel, line);
    const before = parseBill(line, TODAY);
    assert.equal(before.kind === 'bank' && before.dueDate, '2022-05-10');
    const after = parseBill(line, '2045-01-01');
    assert.equal(after.kind === 'bank' && after.dueDate, '2046-12-30');
    assert.equal(after.kind === 'bank' && after.amountCents, 21_403);
  });

  it('names each defect', () => {
    const barcode = bankBarcode({
      bankCode: '364',
      dueDate: '2026-12-10',
      amountCents: 12_345,
      freeField: '1'.repeat(25),
    });
    const line = bankBarcodeToLine(barcode);
    assertDefect(`${line.slice(0, 5)}x${line.slice(6)}`, 'not_digits');
    assertDefect(line.slice(1), 'length');
    assertDefect(`${line}00`, 'length');
    assertDefect(flipDigit(line, 2), 'field_check_digit');
    assertDefect(flipDigit(line, 12), 'field_check_digit');
    assertDefect(flipDigit(line, 25), 'field_check_digit');
    assertDefect(flipDigit(line, 40), 'general_check_digit'); // the amount
    assertDefect(flipDigit(line, 32), 'general_check_digit'); // the general DV itself
    assertDefect(flipDigit(barcode, 20), 'general_check_digit');
    const dollars = `3649${barcode.slice(5)}`;
    const withDv = dollars.slice(0, 4) + bankModulo11(dollars.slice(0, 4) + dollars.slice(4)) + dollars.slice(4);
    assertDefect(withDv.slice(0, 3) + '0' + withDv.slice(4), 'general_check_digit');
    const otherCurrency = bankBarcode({
      bankCode: '364',
      currencyCode: '0',
      dueDate: null,
      amountCents: 1,
      freeField: '2'.repeat(25),
    });
    assertDefect(otherCurrency, 'currency_code');
    assert.throws(
      () => bankBarcode({ bankCode: '36', dueDate: null, amountCents: 1, freeField: '2'.repeat(25) }),
      RangeError,
    );
    assert.throws(
      () => bankBarcode({ bankCode: '364', dueDate: null, amountCents: 10 ** 10, freeField: '2'.repeat(25) }),
      RangeError,
    );
  });
});

describe('arrecadação bills', () => {
  // boleto-brasileiro-validator's README examples: segment 3 by modulo 10, segments 5 and 4 by modulo 11
  const energy = '836200000005 667800481000 180975657313 001589636081';
  const government = '85890000460-9 52460179160-5 60759305086-5 83148300001-0';
  const telecom = '84890000000404201622018060519042958603411122';

  it('reads segment, value, company and the modulus the value identifier picks', () => {
    const e = parseBill(energy, TODAY);
    assert.deepEqual(
      { ...e, linhaDigitavel: undefined, barcode: undefined },
      {
        kind: 'arrecadacao',
        barcode: undefined,
        linhaDigitavel: undefined,
        segment: 3,
        valueIdentifier: 6,
        amountCents: 6678,
        value: '00000006678',
        companyId: '0048',
        freeField: '1001809756573100158963608',
      },
    );
    assert.equal(e.linhaDigitavel, energy.replace(/\D/g, ''));
    const g = parseBill(government, TODAY);
    assert.equal(g.kind === 'arrecadacao' && g.segment, 5);
    assert.equal(g.kind === 'arrecadacao' && g.valueIdentifier, 8);
    assert.equal(g.kind === 'arrecadacao' && g.amountCents, 4_605_246);
    assert.equal(g.barcode, '85890000460524601791606075930508683148300001');
    const t = parseBill(telecom, TODAY);
    assert.equal(t.kind === 'arrecadacao' && t.amountCents, 4_042);
    assert.equal(t.kind === 'arrecadacao' && t.companyId, '0162');
    assert.equal(t.linhaDigitavel.length, 48);
    assert.ok(independentlyValid(t.linhaDigitavel));
  });

  it('carries a reference quantity (identifiers 7 and 9) and the CNPJ root in segment 6', () => {
    for (const identifier of ['7', '9']) {
      const body = `86${identifier}` + '00000012345' + '12345678' + '9'.repeat(21);
      const dv = identifier === '7' ? modulo10(body) : arrecadacaoModulo11(body);
      const barcode = body.slice(0, 3) + dv + body.slice(3);
      assert.ok(independentlyValid(barcode));
      assert.ok(independentlyValid(arrecadacaoBarcodeToLine(barcode)));
      const bill = parseBill(arrecadacaoBarcodeToLine(barcode), TODAY);
      assert.equal(bill.kind === 'arrecadacao' && bill.amountCents, null);
      assert.equal(bill.kind === 'arrecadacao' && bill.value, '00000012345');
      assert.equal(bill.kind === 'arrecadacao' && bill.companyId, '12345678');
    }
  });

  it('names each defect', () => {
    const line = government.replace(/\D/g, '');
    assertDefect(flipDigit(line, 3), 'block_check_digit');
    assertDefect(flipDigit(line, 47), 'block_check_digit');
    assertDefect(flipDigit(telecom, 10), 'general_check_digit');
    assertDefect(`7${line.slice(1)}`, 'product');
    assertDefect(`88${line.slice(2)}`, 'segment');
    assertDefect(`80${line.slice(2)}`, 'segment');
    assertDefect(`855${line.slice(3)}`, 'value_identifier');
    assertDefect(`845${telecom.slice(3)}`, 'value_identifier');
    assertDefect('8'.repeat(45), 'length');
  });
});
