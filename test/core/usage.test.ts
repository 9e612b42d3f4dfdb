/** Canonical usage: the check every upstream figure passes before it is billed, and its bound. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  emptyUsage,
  maxUsageTokens,
  promptSide,
  promptTokens,
  reportedCount,
  USAGE_CEILING_TOKENS,
  usageProblem,
  type Usage,
} from '../../gateway/core/usage.js';

const u = (over: Partial<Usage>): Usage => ({ ...emptyUsage(), ...over });

test('whole, non-negative figures within the bound pass', () => {
  assert.equal(
    usageProblem(
      u({
        inputTokens: 1000,
        cacheReadTokens: 20,
        cacheWriteTokens: 5,
        cacheWrite1hTokens: 7,
        outputTokens: 300,
        reasoningTokens: 100,
      }),
      10_000,
    ),
    undefined,
  );
  assert.equal(usageProblem(emptyUsage(), 0), undefined);
});

test('negative, fractional, non-finite, unsafe and non-number figures are refused, naming the field', () => {
  const cases: [Partial<Usage>, RegExp][] = [
    [{ outputTokens: -8_000_000_000 }, /outputTokens is -8000000000/],
    [{ outputTokens: 1e300 }, /outputTokens is 1e\+300/],
    [{ inputTokens: 12.5 }, /inputTokens is 12\.5/],
    [{ cacheReadTokens: Number.NaN }, /cacheReadTokens is NaN/],
    [{ cacheWrite1hTokens: Infinity }, /cacheWrite1hTokens is Infinity/],
    [{ audioInputTokens: 2 ** 53 }, /audioInputTokens is 9007199254740992/],
    [{ reasoningTokens: '7' as unknown as number }, /reasoningTokens is "7"/],
  ];
  for (const [over, message] of cases)
    assert.match(usageProblem(u(over), Number.MAX_SAFE_INTEGER) ?? 'passed', message);
});

test('a total beyond the bound is refused', () => {
  assert.match(
    usageProblem(u({ inputTokens: 900, outputTokens: 101 }), 1000) ?? 'passed',
    /1001 tokens in all is more than .* 1000/,
  );
  assert.equal(usageProblem(u({ inputTokens: 900, outputTokens: 100 }), 1000), undefined);
});

test("the bound is four times the model's context and output, or the fixed ceiling when the catalogue has no figures", () => {
  assert.equal(maxUsageTokens({ contextWindow: 128_000, maxOutputTokens: 16_384 }), 4 * 144_384);
  assert.equal(maxUsageTokens({ contextWindow: 0, maxOutputTokens: 0 }), USAGE_CEILING_TOKENS);
  assert.equal(maxUsageTokens({ contextWindow: 5_000_000, maxOutputTokens: 5_000_000 }), USAGE_CEILING_TOKENS);
});

test('an upstream figure is carried as sent: absent is the fallback, a number stays, anything else is NaN', () => {
  assert.deepEqual(
    [reportedCount(undefined), reportedCount(null, 7), reportedCount(-3), reportedCount(1.5)],
    [0, 7, -3, 1.5],
  );
  assert.ok(Number.isNaN(reportedCount('12')), 'a string is not a count');
  assert.ok(Number.isNaN(reportedCount({})), 'an object is not a count');
});

test('both cache-write lifetimes are prompt tokens; the prompt side drops the output', () => {
  const x = u({
    inputTokens: 10,
    cacheReadTokens: 20,
    cacheWriteTokens: 30,
    cacheWrite1hTokens: 40,
    outputTokens: 50,
    reasoningTokens: 5,
  });
  assert.equal(promptTokens(x), 100);
  assert.deepEqual(promptSide(x), { ...x, outputTokens: 0, reasoningTokens: 0 });
});
