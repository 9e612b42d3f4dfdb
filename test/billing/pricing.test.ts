import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { costMicro, reservationMicro } from '../../gateway/billing/pricing.js';
import type { Prices } from '../../gateway/catalogue/presets.js';
import { emptyUsage, type Usage } from '../../gateway/core/usage.js';

const X1 = 1_000_000; // multiplier 1 in parts per million
const usage = (u: Partial<Usage>): Usage => ({ ...emptyUsage(), ...u });

// Distinct prices (micro-USD per million tokens) so that a bucket billed at the wrong price shows.
const prices: Prices = {
  input: 2_500_000,
  output: 10_000_000,
  cacheRead: 1_250_000,
  cacheWrite: 3_750_000,
  audioInput: 40_000_000,
  imageInput: 5_000_000,
};
const textOnly: Prices = { input: 2_500_000, output: 10_000_000, cacheRead: 1_250_000, cacheWrite: 3_750_000 };

describe('costMicro', () => {
  test('bills each bucket at its own price', () => {
    assert.equal(costMicro(usage({ inputTokens: 1_000 }), prices, X1), 2_500); // 1000 × $2.50/M
    assert.equal(costMicro(usage({ outputTokens: 300 }), prices, X1), 3_000); // 300 × $10/M
    assert.equal(costMicro(usage({ cacheReadTokens: 2_000 }), prices, X1), 2_500); // 2000 × $1.25/M
    assert.equal(costMicro(usage({ cacheWriteTokens: 400 }), prices, X1), 1_500); // 400 × $3.75/M
    assert.equal(costMicro(usage({ audioInputTokens: 100 }), prices, X1), 4_000); // 100 × $40/M
    assert.equal(costMicro(usage({ imageInputTokens: 100 }), prices, X1), 500); // 100 × $5/M
  });

  test('bills audio and image input at the input price when they have none of their own', () => {
    assert.equal(costMicro(usage({ audioInputTokens: 100 }), textOnly, X1), 250);
    assert.equal(costMicro(usage({ imageInputTokens: 100 }), textOnly, X1), 250);
  });

  test('sums the buckets before rounding and never bills reasoning tokens twice', () => {
    const u = usage({
      inputTokens: 1_000,
      cacheReadTokens: 2_000,
      cacheWriteTokens: 400,
      outputTokens: 300,
      reasoningTokens: 250,
      audioInputTokens: 100,
    });
    assert.equal(costMicro(u, prices, X1), 2_500 + 2_500 + 1_500 + 3_000 + 4_000);
    // 3 tokens at $0.10/M = 0.3 micro each bucket; 0.9 in total rounds up once, to 1.
    const cheap: Prices = { input: 100_000, output: 100_000, cacheRead: 100_000, cacheWrite: 100_000 };
    assert.equal(costMicro(usage({ inputTokens: 3, outputTokens: 3, cacheReadTokens: 3 }), cheap, X1), 1);
  });

  test('rounds up to the next micro-USD, and only when there is a remainder', () => {
    const mini: Prices = { input: 150_000, output: 600_000, cacheRead: 75_000, cacheWrite: 150_000 };
    assert.equal(costMicro(emptyUsage(), mini, X1), 0);
    assert.equal(costMicro(usage({ inputTokens: 1 }), mini, X1), 1); // 0.15 → 1, not 0
    assert.equal(costMicro(usage({ inputTokens: 1_000_000 }), mini, X1), 150_000);
    assert.equal(costMicro(usage({ inputTokens: 1_000_001 }), mini, X1), 150_001); // 150000.15
  });

  test('applies the group multiplier exactly', () => {
    assert.equal(costMicro(usage({ inputTokens: 1_000 }), prices, 1_500_000), 3_750); // 2500 × 1.5
    assert.equal(costMicro(usage({ inputTokens: 1_000 }), prices, 800_000), 2_000); // 2500 × 0.8
    assert.equal(costMicro(usage({ inputTokens: 7 }), { ...textOnly, input: 1_000_000 }, 800_000), 6); // 5.6 → 6
    // In floating point 110 × 1.1 = 121.00000000000001, which would round up to 122.
    assert.equal(costMicro(usage({ inputTokens: 100 }), { ...textOnly, input: 1_100_000 }, 1_100_000), 121);
  });

  test('stays exact when intermediates pass 2^53', () => {
    const opus: Prices = { input: 15_000_000, output: 75_000_000, cacheRead: 1_500_000, cacheWrite: 18_750_000 };
    // 2,000,000 × 75,000,000 × 3,000,000 ppm = 4.5e20 > 2^53; cost = 2 M tokens × $75/M × 3 = $450.
    assert.equal(costMicro(usage({ outputTokens: 2_000_000 }), opus, 3_000_000), 450_000_000);
    // 2,000,001 × 75,000,001 × 3 / 1e6 = 450,000,231.000003 → 450,000,232.
    assert.equal(
      costMicro(usage({ outputTokens: 2_000_001 }), { ...opus, output: 75_000_001 }, 3_000_000),
      450_000_232,
    );
  });

  test("stays exact when a bucket's tokens × price, or the sum of the buckets, passes 2^53", () => {
    const dear: Prices = { input: 999_999_999_999, output: 3, cacheRead: 1_234_567_890_123, cacheWrite: 7 };
    const u = usage({ inputTokens: 9_999_999, cacheReadTokens: 7_777_777, outputTokens: 5, cacheWriteTokens: 11 });
    const exact = 9_999_999n * 999_999_999_999n + 7_777_777n * 1_234_567_890_123n + 5n * 3n + 11n * 7n; // each product > 2^53
    const ceilDiv = (n: bigint, d: bigint): bigint => (n + d - 1n) / d;
    assert.equal(costMicro(u, dear, 1_000_001), Number(ceilDiv(exact * 1_000_001n, 10n ** 12n)));
    // Two products each under 2^53 whose sum is over it.
    const half: Prices = { input: 900_000_000, output: 900_000_000, cacheRead: 0, cacheWrite: 0 };
    const v = usage({ inputTokens: 9_000_001, outputTokens: 9_000_003 });
    const sum = 9_000_001n * 900_000_000n + 9_000_003n * 900_000_000n;
    assert.ok(sum > BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(costMicro(v, half, 1_000_000), Number(ceilDiv(sum * 1_000_000n, 10n ** 12n)));
  });
});

describe('reservationMicro', () => {
  test('holds estimated input at the dearest prompt-token price plus max output at the output price', () => {
    // A prompt token costs at most a cache write here: 10,000 × $3.75/M + 4,096 × $10/M = 37,500 + 40,960 micro-USD.
    assert.equal(reservationMicro(10_000, 4_096, textOnly, X1), 78_460);
    assert.equal(reservationMicro(10_000, 4_096, textOnly, 1_500_000), 117_690);
    // Audio input is the dearest where it is priced apart: 10,000 × $40/M.
    assert.equal(reservationMicro(10_000, 4_096, prices, X1), 440_960);
    assert.equal(reservationMicro(0, 0, prices, X1), 0);
  });

  test('rounds up', () => {
    const mini: Prices = { input: 150_000, output: 600_000, cacheRead: 75_000, cacheWrite: 150_000 };
    assert.equal(reservationMicro(1, 1, mini, X1), 1); // 0.75 → 1
    assert.equal(reservationMicro(1, 0, mini, 800_000), 1); // 0.12 → 1
  });

  test('stays exact for large requests', () => {
    const pro: Prices = { input: 150_000_000, output: 600_000_000, cacheRead: 0, cacheWrite: 0 };
    // (1,000,000 × $150/M + 128,000 × $600/M) × 3 = ($150 + $76.80) × 3 = $680.40
    assert.equal(reservationMicro(1_000_000, 128_000, pro, 3_000_000), 680_400_000);
  });
});
