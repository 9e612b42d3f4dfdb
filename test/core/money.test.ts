import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { numberText, parseMultiplier, perTokenToMicroPerMillion, scaleDecimal } from '../../gateway/core/money.js';

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
