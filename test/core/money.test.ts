import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatUsd,
  numberText,
  parseMultiplier,
  parseUsd,
  perTokenToMicroPerMillion,
  scaleDecimal,
} from '../../gateway/core/money.js';

describe('parseUsd', () => {
  test('parses decimal strings exactly into micro-USD', () => {
    assert.equal(parseUsd('0.000001'), 1);
    assert.equal(parseUsd('10'), 10_000_000);
    assert.equal(parseUsd('$3.5'), 3_500_000);
    assert.equal(parseUsd('12.50'), 12_500_000);
    assert.equal(parseUsd('0'), 0);
    assert.equal(parseUsd(' 2.25 '), 2_250_000);
    // 0.1 + 0.2 !== 0.3 in floating point; in micro-USD it must.
    assert.equal(parseUsd('0.1') + parseUsd('0.2'), parseUsd('0.3'));
    assert.equal(parseUsd('9007199254.740991'), Number.MAX_SAFE_INTEGER);
  });

  test('rejects negatives, more than six decimals and anything not a plain number', () => {
    for (const bad of [
      '-1',
      '$-1',
      '1.0000001',
      'abc',
      '1e3',
      '',
      '.5',
      '1.',
      '1,000',
      '0x10',
      'Infinity',
      'NaN',
      '$$3',
      '1 000',
    ]) {
      assert.throws(() => parseUsd(bad), { name: 'RangeError', message: /is not an amount in USD/ }, bad);
    }
  });

  test('rejects values beyond the safe integer range', () => {
    assert.throws(() => parseUsd('9007199254.740992'), { name: 'RangeError', message: /too large/ });
    assert.throws(() => parseUsd('1' + '0'.repeat(30)), { name: 'RangeError', message: /too large/ });
  });
});

describe('formatUsd', () => {
  test('shows at least two and at most six decimals', () => {
    assert.equal(formatUsd(0), '$0.00');
    assert.equal(formatUsd(1), '$0.000001');
    assert.equal(formatUsd(123), '$0.000123');
    assert.equal(formatUsd(10_000), '$0.01');
    assert.equal(formatUsd(1_234_500), '$1.2345');
    assert.equal(formatUsd(12_500_000), '$12.50');
    assert.equal(formatUsd(1_000_000_000), '$1000.00');
  });

  test('puts the sign before the dollar', () => {
    assert.equal(formatUsd(-123), '-$0.000123');
    assert.equal(formatUsd(-12_500_000), '-$12.50');
  });

  test('round-trips through parseUsd', () => {
    for (const micro of [0, 1, 123, 99_999_999, 12_500_000, Number.MAX_SAFE_INTEGER])
      assert.equal(parseUsd(formatUsd(micro)), micro);
  });
});

describe('multipliers', () => {
  test('parse into parts per million, from strings or numbers', () => {
    assert.equal(parseMultiplier('1'), 1_000_000);
    assert.equal(parseMultiplier('0.8'), 800_000);
    assert.equal(parseMultiplier('1.25'), 1_250_000);
    assert.equal(parseMultiplier(1.5), 1_500_000);
    assert.equal(parseMultiplier('0.000001'), 1);
  });

  test('must be positive plain numbers', () => {
    assert.throws(() => parseMultiplier('0'), { message: /greater than 0/ });
    assert.throws(() => parseMultiplier('-1'), RangeError);
    assert.throws(() => parseMultiplier('0.0000001'), RangeError);
  });
});

describe('perTokenToMicroPerMillion: per-token prices from price lists, exactly', () => {
  test('decimal and exponent forms scale by 10^12 into micro-USD per million tokens', () => {
    assert.deepEqual(perTokenToMicroPerMillion('0.000003'), { micro: 3_000_000, exact: true });
    assert.deepEqual(perTokenToMicroPerMillion('3e-06'), { micro: 3_000_000, exact: true });
    assert.deepEqual(perTokenToMicroPerMillion('1.5E-7'), { micro: 150_000, exact: true });
    assert.deepEqual(perTokenToMicroPerMillion('0.00000625'), { micro: 6_250_000, exact: true });
    assert.deepEqual(perTokenToMicroPerMillion('0'), { micro: 0, exact: true });
    assert.deepEqual(perTokenToMicroPerMillion('2.1875e-06'), { micro: 2_187_500, exact: true });
  });

  test('finer than $0.000001 per million rounds up, never down, and says so', () => {
    assert.deepEqual(perTokenToMicroPerMillion('1.2345678e-7'), { micro: 123_457, exact: false });
    assert.deepEqual(perTokenToMicroPerMillion('1e-13'), { micro: 1, exact: false });
  });

  test('through a JSON number: the shortest decimal text, so 3e-6 read from JSON is exactly $3 per million', () => {
    const parsed = JSON.parse('{"a": 3e-06, "b": 1.25e-07, "c": 0.0000015625, "d": 3e-08}') as Record<string, number>;
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((k) => perTokenToMicroPerMillion(numberText(parsed[k]!)!).micro),
      [3_000_000, 125_000, 1_562_500, 30_000],
    );
    // Gemini 2.5 Flash's cache-read price, multiplied out in floating point, is not $0.03 per million.
    assert.notEqual(parsed.d! * 1e12, 30_000);
    assert.equal(numberText(-1), null);
    assert.equal(numberText(Number.NaN), null);
  });

  test('anything but a non-negative number is refused', () => {
    for (const bad of ['-1', '-0.000003', 'abc', '', '0x10', '1e400', 'Infinity', '1,5']) {
      assert.throws(() => perTokenToMicroPerMillion(bad), RangeError, bad);
    }
    assert.throws(() => perTokenToMicroPerMillion('1e10'), /too large/);
    assert.deepEqual(scaleDecimal('12.5', 1), { value: 125n, exact: true });
    assert.deepEqual(scaleDecimal('12.55', 1), { value: 126n, exact: false });
  });
});
