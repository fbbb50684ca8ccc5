/**
 * Property tests of the division, from a seeded generator (set SPLIT_SEED to replay another run):
 * for random amounts and random share sets, the shares add up exactly to what was received and each
 * percentage share is within one cent of its exact value. First on the arithmetic alone, then through
 * the HTTP API, the payment engine and the database.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cobBody, startTestService, type Party, type TestService } from '../helpers/service.ts';
import { assertBalanceMatchesLines, assertLedgerBalanced } from '../helpers/ledger.ts';
import { LIMITS } from '../../src/platform/limits.ts';
import { formatAmount } from '../../src/platform/money.ts';
import { SplitExceedsAmount, divide } from '../../src/pix/split/shares.ts';
import {
  configBody,
  distributionOf,
  hundredthsText,
  newBeneficiary,
  randomPercentages,
  seeded,
  type Beneficiary,
} from './split-fixtures.ts';

const SEED = Number(process.env.SPLIT_SEED ?? 20260101);
const MAX_AMOUNT_CENTS = 999_999_999_999; // 9999999999.99: the largest Pix amount (10 integer digits)

/** |share − amount × p / 100 %| < 1 cent, compared exactly: |share × 10000 − amount × p| < 10000. */
function withinOneCent(shareCents: number, amountCents: number, percentHundredths: number): boolean {
  const total = BigInt(LIMITS.splitPercentTotalHundredths);
  const error = BigInt(shareCents) * total - BigInt(amountCents) * BigInt(percentHundredths);
  return (error < 0n ? -error : error) < total;
}

/** Amounts spread over every magnitude, from one cent to the largest Pix. */
const randomAmount = (rng: ReturnType<typeof seeded>) =>
  Math.max(1, Math.floor(10 ** (rng.next() * Math.log10(MAX_AMOUNT_CENTS))));

describe('split division properties (arithmetic)', () => {
  it('percentages: 2000 random share sets add up exactly, each share within 1 cent of exact', () => {
    const rng = seeded(SEED);
    let rounded = 0;
    for (let n = 0; n < 2000; n++) {
      const count = rng.int(2, LIMITS.splitRepassesMaxItems + 1);
      const percents = randomPercentages(rng, count, rng.int(0, 1));
      const amountCents = n < 20 ? n + 1 : randomAmount(rng);
      const shares = divide(amountCents, { tipo: 'porcentagem', valoresHundredths: percents });
      const context = `case ${n} (seed ${SEED}): ${amountCents} cents by [${percents.join(',')}] -> [${shares.join(',')}]`;
      assert.equal(
        shares.reduce((a, b) => a + b, 0),
        amountCents,
        context,
      );
      shares.forEach((share, i) =>
        assert.ok(withinOneCent(share, amountCents, percents[i]), `${context}: position ${i}`),
      );
      if (
        shares.some(
          (share, i) =>
            BigInt(share) * BigInt(LIMITS.splitPercentTotalHundredths) !== BigInt(amountCents) * BigInt(percents[i]),
        )
      )
        rounded++;
    }
    assert.ok(rounded > 1500, `most cases needed rounding (${rounded})`);
  });

  it('percentages: the largest amount with 21 shares stays exact (no floating point)', () => {
    const percents = [100, ...Array.from({ length: 20 }, () => 495)];
    const shares = divide(MAX_AMOUNT_CENTS, { tipo: 'porcentagem', valoresHundredths: percents });
    assert.equal(
      shares.reduce((a, b) => a + b, 0),
      MAX_AMOUNT_CENTS,
    );
    shares.forEach((share, i) => assert.ok(withinOneCent(share, MAX_AMOUNT_CENTS, percents[i])));
  });

  it('fixed amounts: 1000 random sets give each beneficiary its amount and the receiver the rest, or refuse', () => {
    const rng = seeded(SEED + 1);
    let refusals = 0;
    for (let n = 0; n < 1000; n++) {
      const count = rng.int(2, LIMITS.splitRepassesMaxItems + 1);
      const fixed = Array.from({ length: count }, (_, i) => rng.int(i === 0 ? 0 : 1, 100_000));
      const fixedTotal = fixed.reduce((a, b) => a + b, 0);
      const amountCents = rng.int(Math.max(1, fixedTotal - 50_000), fixedTotal + 50_000);
      const spec = { tipo: 'fixo' as const, valoresHundredths: fixed };
      if (amountCents < fixedTotal) {
        assert.throws(() => divide(amountCents, spec), SplitExceedsAmount);
        refusals++;
        continue;
      }
      const shares = divide(amountCents, spec);
      assert.equal(
        shares.reduce((a, b) => a + b, 0),
        amountCents,
      );
      assert.deepEqual(shares.slice(1), fixed.slice(1));
      assert.equal(shares[0], fixed[0] + amountCents - fixedTotal);
    }
    assert.ok(refusals > 100 && refusals < 900, 'both outcomes were exercised');
  });
});

describe('split division properties (through the API, the engine and the database)', () => {
  const CASES = 200;
  let svc: TestService;
  let receiver: Party;
  let token: string;
  let pool: Beneficiary[];
  const call = (method: string, path: string, body?: unknown) => receiver.http.request(method, path, { token, body });

  before(async () => {
    svc = await startTestService();
    receiver = await svc.newParty();
    token = await receiver.token();
    pool = await Promise.all(Array.from({ length: LIMITS.splitRepassesMaxItems }, () => newBeneficiary(svc)));
  });
  after(() => svc.close());

  it(`${CASES} random configurations, linked and paid: every division adds up and every balance is its shares`, async () => {
    const rng = seeded(SEED + 2);
    const expectedBalanceCents = new Map<number, number>(
      [receiver.accountId, ...pool.map((b) => b.party.accountId)].map((id) => [id, 0]),
    );
    for (let n = 0; n < CASES; n++) {
      const count = rng.int(1, LIMITS.splitRepassesMaxItems);
      const beneficiaries = rng.shuffle(pool).slice(0, count);
      const percents = randomPercentages(rng, count + 1, rng.int(0, 1));
      const body = configBody(
        'porcentagem',
        hundredthsText(percents[0]),
        beneficiaries.map((b, i) => [b, hundredthsText(percents[i + 1])] as [Beneficiary, string]),
      );
      const config = await call('POST', '/v2/gn/split/config', body);
      assert.equal(config.status, 201, config.text);
      // Above 10.00 so the sandbox does not pay it by itself; up to a million.
      const amountCents = rng.int(1001, 100_000_000);
      const cob = await call('POST', '/v2/cob', cobBody(receiver.chaves[0], formatAmount(amountCents)));
      assert.equal(cob.status, 201, cob.text);
      assert.equal((await call('PUT', `/v2/gn/split/cob/${cob.body.txid}/vinculo/${config.body.id}`)).status, 204);
      const pix = await call('POST', '/sandbox/pix/pay', { txid: cob.body.txid });
      assert.equal(pix.status, 201, pix.text);

      const shares = await distributionOf(svc.service.ctx.db, pix.body.endToEndId);
      const context = `case ${n} (seed ${SEED}): ${amountCents} cents by [${percents.join(',')}] -> [${shares.map((s) => s.amountCents).join(',')}]`;
      assert.deepEqual(
        shares.map((s) => s.accountId),
        [receiver.accountId, ...beneficiaries.map((b) => b.party.accountId)],
        context,
      );
      assert.equal(
        shares.reduce((acc, s) => acc + s.amountCents, 0),
        amountCents,
        context,
      );
      shares.forEach((s, i) =>
        assert.ok(withinOneCent(s.amountCents, amountCents, percents[i]), `${context}: position ${i}`),
      );
      for (const s of shares)
        expectedBalanceCents.set(s.accountId, expectedBalanceCents.get(s.accountId)! + s.amountCents);
    }
    const sql = svc.service.ctx.db;
    await assertLedgerBalanced(sql);
    for (const party of [receiver, ...pool.map((b) => b.party)]) {
      const saldo = (await party.http.request('GET', '/v2/gn/saldo/', { token: await party.token() })).body
        .saldo as string;
      await assertBalanceMatchesLines(sql, party.accountId, saldo);
      assert.equal(
        saldo,
        formatAmount(expectedBalanceCents.get(party.accountId)!),
        `balance of account ${party.accountId}`,
      );
    }
  });
});
