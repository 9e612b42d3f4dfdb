import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatUsd, parseMultiplier, parseUsd } from '../../gateway/core/money.js';

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
    for (const bad of ['-1', '$-1', '1.0000001', 'abc', '1e3', '', '.5', '1.', '1,000', '0x10', 'Infinity', 'NaN', '$$3', '1 000']) {
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
    for (const micro of [0, 1, 123, 99_999_999, 12_500_000, Number.MAX_SAFE_INTEGER]) assert.equal(parseUsd(formatUsd(micro)), micro);
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
