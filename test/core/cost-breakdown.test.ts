/** The charge breakdown agrees with billing to the micro-USD, and writes its sum out exactly. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costMicro } from '../../gateway/billing/pricing.js';
import { costBreakdown, decimal } from '../../gateway/core/cost-breakdown.js';
import type { Prices } from '../../gateway/contract/prices.js';
import type { Usage } from '../../gateway/core/usage.js';

test('decimal: exact text, no trailing zeros, any scale', () => {
  assert.equal(decimal(1_500_000n, 6), '1.5');
  assert.equal(decimal(0n, 12), '0');
  assert.equal(decimal(7n, 12), '0.000000000007');
  assert.equal(decimal(123_000_000_000_000n, 12), '123');
  assert.equal(decimal(-25n, 1), '-2.5');
});

/** A small deterministic generator, so a failure can be reproduced. */
function rng(seed: number): (max: number) => number {
  let s = seed;
  return (max) => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s % max;
  };
}

test('the breakdown total equals what billing charges, for any usage, prices and multiplier', () => {
  const next = rng(11);
  for (let i = 0; i < 2000; i++) {
    const usage: Usage = {
      inputTokens: next(3_000_000),
      cacheReadTokens: next(4) === 0 ? 0 : next(500_000),
      cacheWriteTokens: next(4) === 0 ? 0 : next(200_000),
      cacheWrite1hTokens: next(3) === 0 ? next(200_000) : 0,
      outputTokens: next(200_000),
      reasoningTokens: 0,
      audioInputTokens: next(3) === 0 ? next(50_000) : 0,
      imageInputTokens: next(3) === 0 ? next(50_000) : 0,
    };
    const prices: Prices = {
      input: next(20_000_000),
      output: next(80_000_000),
      cacheRead: next(2_000_000),
      cacheWrite: next(5_000_000),
    };
    if (next(2) === 0) prices.cacheWrite1h = next(8_000_000);
    if (next(2) === 0) prices.audioInput = next(40_000_000);
    if (next(2) === 0) prices.imageInput = next(10_000_000);
    const multiplierPpm = 1 + next(3_000_000);
    const b = costBreakdown(usage, { prices, multiplierPpm });
    assert.equal(
      b.costMicro,
      costMicro(usage, prices, multiplierPpm),
      JSON.stringify({ usage, prices, multiplierPpm }),
    );
  }
});

test('audio and image input not priced apart are billed, and shown, at the input price', () => {
  const usage: Usage = {
    inputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    audioInputTokens: 5,
    imageInputTokens: 0,
  };
  const b = costBreakdown(usage, {
    prices: { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 },
    multiplierPpm: 1_000_000,
  });
  assert.deepEqual(
    b.terms.map((t) => [t.usage, t.price, t.priceMicroPerMillion]),
    [
      ['inputTokens', 'input', 1_000_000],
      ['audioInputTokens', 'input', 1_000_000],
    ],
  );
  assert.equal(b.formula, '10 input × $1/M + 5 audio input × $1/M = $0.000015');
});

test('nothing billed: no terms, cost 0', () => {
  const b = costBreakdown(
    {
      inputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    { prices: { input: 5, output: 5, cacheRead: 5, cacheWrite: 5 }, multiplierPpm: 2_000_000 },
  );
  assert.deepEqual([b.terms, b.costMicro, b.formula], [[], 0, 'no tokens billed']);
});
