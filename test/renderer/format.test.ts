/** The console's money formats: integer micro-USD in, exact text out, and back. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseUsd, usd } from '../../renderer/lib/format.js';

test('usd shows cents, and more digits only when the amount has them', () => {
  assert.equal(usd(0), '$0.00');
  assert.equal(usd(12_500_000), '$12.50');
  assert.equal(usd(43), '$0.000043');
  assert.equal(usd(24_999_823), '$24.999823');
  assert.equal(usd(1_234_567_000_000), '$1,234,567.00');
  assert.equal(usd(-1_500_000), '−$1.50');
});

test('parseUsd reads what people type into integer micro-USD, and refuses the rest', () => {
  assert.equal(parseUsd('10'), 10_000_000);
  assert.equal(parseUsd(' $2.5 '), 2_500_000);
  assert.equal(parseUsd('0.000001'), 1);
  assert.equal(parseUsd('1,000'), 1_000_000_000);
  for (const bad of ['', 'ten', '1.0000001', '-5', '1e3', '.5']) assert.equal(parseUsd(bad), undefined, bad);
  for (const micro of [0, 1, 43, 10_000, 12_500_000, 24_999_823])
    assert.equal(parseUsd(usd(micro)), micro, String(micro));
});
