import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tieredPrices, tierFor, tierWords, tokensShort } from '../../gateway/contract/prices.js';

const base = { input: 2_500_000, output: 15_000_000, cacheRead: 250_000, cacheWrite: 0 };
const tiers = [
  { above: 200_000, prices: { input: 4_000_000 } },
  { above: 272_000, prices: { input: 5_000_000, output: 22_500_000, cacheRead: 500_000 } },
];

test('the tier is the highest whose threshold the prompt passes; at the threshold itself none applies', () => {
  assert.equal(tierFor(tiers, 200_000), undefined);
  assert.equal(tierFor(tiers, 200_001), tiers[0]);
  assert.equal(tierFor(tiers, 300_000), tiers[1]);
  assert.equal(tierFor(undefined, 1e9), undefined);
  assert.equal(tierFor([...tiers].reverse(), 300_000), tiers[1], 'whatever order they come in');
});

test("a tier's prices replace the kinds it names, the rest stay", () => {
  assert.deepEqual(tieredPrices(base, tiers[0]), { ...base, input: 4_000_000 });
  assert.equal(tieredPrices(base, undefined), base);
});

test('in words, as the breakdown leads with them', () => {
  assert.equal(tierWords(base, tiers[1]!), 'above 272K: ×2 input, ×1.5 output, ×2 cache read');
  assert.equal(tierWords(base, { above: 1_000_000, prices: { cacheWrite: 1_000_000 } }), 'above 1M: cache write $1/M');
  assert.equal(tierWords(base, { above: 128_000, prices: { input: 2_500_000 } }), 'above 128K: same prices');
  assert.equal(tokensShort(131_072), '131,072');
});
