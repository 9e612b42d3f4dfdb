/**
 * Money as text (gateway/contract/money.ts), the one rule of the console, the tray and the CLI:
 * balances and totals to the cent with thousands separators, request costs to the micro-dollar,
 * prices as price lists write them, exact plain digits for the API's messages and --json; and what
 * people type read back exactly, or refused with a reason.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseUsd, tryParseUsd, usd, usdCost, usdDigits, usdExact, usdPrice } from '../../gateway/contract/money.js';

describe('usd: balances and totals', () => {
  test('two decimals, thousands separated, the sign before the dollar', () => {
    assert.equal(usd(0), '$0.00');
    assert.equal(usd(12_500_000), '$12.50');
    assert.equal(usd(1_234_500_000), '$1,234.50');
    assert.equal(usd(1_234_567_000_000), '$1,234,567.00');
    assert.equal(usd(999_990_000), '$999.99');
    assert.equal(usd(-2_500_000), '-$2.50');
  });

  test('rounded to the cent, half away from zero', () => {
    assert.equal(usd(43), '$0.00');
    assert.equal(usd(4_999), '$0.00');
    assert.equal(usd(5_000), '$0.01');
    assert.equal(usd(24_999_823), '$25.00');
    assert.equal(usd(999_995_000), '$1,000.00');
    assert.equal(usd(-5_000), '-$0.01');
    assert.equal(usd(-4_999), '$0.00', 'no sign on a figure that shows zero');
  });
});

test('usdCost: a request cost to the micro-dollar, all six decimals', () => {
  assert.equal(usdCost(0), '$0.000000');
  assert.equal(usdCost(43), '$0.000043');
  assert.equal(usdCost(12_500_000), '$12.500000');
  assert.equal(usdCost(1_234_500_001), '$1,234.500001');
  assert.equal(usdCost(-1), '-$0.000001');
});

test('usdPrice: per million tokens, two to six decimals, thousands separated', () => {
  assert.equal(usdPrice(2_500_000), '$2.50');
  assert.equal(usdPrice(75_000), '$0.075');
  assert.equal(usdPrice(1), '$0.000001');
  assert.equal(usdPrice(1_000_000_000), '$1,000.00');
});

test('usdExact and usdDigits: exact plain digits, as the API messages and --json have always said them', () => {
  assert.equal(usdExact(0), '$0.00');
  assert.equal(usdExact(123), '$0.000123');
  assert.equal(usdExact(1_234_500), '$1.2345');
  assert.equal(usdExact(1_000_000_000), '$1000.00');
  assert.equal(usdExact(-12_500_000), '-$12.50');
  assert.equal(usdDigits(1_000_000_000), '1000.00');
  assert.equal(usdDigits(-123), '-0.000123');
});

describe('parseUsd', () => {
  test('reads what people type into integer micro-USD, exactly', () => {
    assert.equal(parseUsd('0.000001'), 1);
    assert.equal(parseUsd('10'), 10_000_000);
    assert.equal(parseUsd(' $2.5 '), 2_500_000);
    assert.equal(parseUsd('12.50'), 12_500_000);
    assert.equal(parseUsd('0'), 0);
    assert.equal(parseUsd('1,000'), 1_000_000_000);
    assert.equal(parseUsd('$1,234,567.89'), 1_234_567_890_000);
    // 0.1 + 0.2 !== 0.3 in floating point; in micro-USD it must.
    assert.equal(parseUsd('0.1') + parseUsd('0.2'), parseUsd('0.3'));
    assert.equal(parseUsd('9007199254.740991'), Number.MAX_SAFE_INTEGER);
  });

  test('a sign only where the amount may be negative', () => {
    assert.equal(parseUsd('-2.50', { signed: true }), -2_500_000);
    assert.equal(parseUsd('-$2.50', { signed: true }), -2_500_000);
    assert.equal(parseUsd('+5', { signed: true }), 5_000_000);
    assert.ok(Object.is(parseUsd('-0', { signed: true }), 0));
    assert.throws(() => parseUsd('-1'), {
      name: 'RangeError',
      message: '"-1" is not an amount in USD: no sign here, the amount is 0 or more',
    });
  });

  test('refuses the rest, saying why', () => {
    assert.throws(() => parseUsd('1.0000001'), {
      name: 'RangeError',
      message: '"1.0000001" is not an amount in USD: an amount has at most 6 decimals ($0.000001 is the smallest)',
    });
    for (const bad of [
      'abc',
      '1e3',
      '',
      '.5',
      '1.',
      '12,34',
      '1,0000',
      '0x10',
      'Infinity',
      'NaN',
      '$$3',
      '1 000',
      '$-1',
      '--1',
    ])
      assert.throws(
        () => parseUsd(bad, { signed: true }),
        { name: 'RangeError', message: /is not an amount in USD \(/ },
        bad,
      );
    assert.throws(() => parseUsd('9007199254.740992'), { name: 'RangeError', message: /too large/ });
    assert.throws(() => parseUsd('1' + '0'.repeat(30)), { name: 'RangeError', message: /too large/ });
    assert.equal(tryParseUsd('ten'), undefined);
    assert.equal(tryParseUsd('10'), 10_000_000);
  });

  test('reads back every way an amount is shown', () => {
    for (const micro of [0, 1, 43, 10_000, 12_500_000, 24_999_823, 1_234_567_890_123, Number.MAX_SAFE_INTEGER]) {
      assert.equal(parseUsd(usdExact(micro)), micro, usdExact(micro));
      assert.equal(parseUsd(usdDigits(micro)), micro, usdDigits(micro));
      assert.equal(parseUsd(usdCost(micro)), micro, usdCost(micro));
      assert.equal(parseUsd(usdPrice(micro)), micro, usdPrice(micro));
    }
    for (const cents of [0, 1, 99, 123_456, 100_000_000_00])
      assert.equal(parseUsd(usd(cents * 10_000)), cents * 10_000);
    assert.equal(parseUsd(usd(-2_500_000), { signed: true }), -2_500_000);
  });
});
