import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromOpenAIUsage, type OpenAIUsage } from '../../../gateway/wire/openai-chat/usage.js';
import { emptyUsage, promptTokens, usageProblem, type Usage } from '../../../gateway/core/usage.js';

/** Every token in exactly one bucket: the buckets add up to what OpenAI reported in all. */
const totalTokens = (u: Usage): number => promptTokens(u) + u.outputTokens;

test('cached tokens come out of the prompt once and into cacheReadTokens', () => {
  const u = fromOpenAIUsage({
    prompt_tokens: 1_000,
    completion_tokens: 200,
    prompt_tokens_details: { cached_tokens: 600 },
  });
  assert.deepEqual(u, { ...emptyUsage(), inputTokens: 400, cacheReadTokens: 600, outputTokens: 200 });
  assert.equal(totalTokens(u), 1_200);
});

test('audio tokens are split out of the prompt', () => {
  const u = fromOpenAIUsage({
    prompt_tokens: 500,
    completion_tokens: 20,
    prompt_tokens_details: { cached_tokens: 100, audio_tokens: 150 },
  });
  assert.deepEqual(u, {
    ...emptyUsage(),
    inputTokens: 250,
    cacheReadTokens: 100,
    audioInputTokens: 150,
    outputTokens: 20,
  });
  assert.equal(totalTokens(u), 520);
});

test('reasoning tokens are informational: output stays completion_tokens', () => {
  const u = fromOpenAIUsage({
    prompt_tokens: 50,
    completion_tokens: 300,
    completion_tokens_details: { reasoning_tokens: 250 },
  });
  assert.deepEqual(u, { ...emptyUsage(), inputTokens: 50, outputTokens: 300, reasoningTokens: 250 });
  assert.equal(totalTokens(u), 350);
});

test("DeepSeek's prompt_cache_hit_tokens count as cache reads", () => {
  const deepseek: OpenAIUsage & { prompt_cache_miss_tokens: number } = {
    prompt_tokens: 800,
    completion_tokens: 50,
    prompt_cache_hit_tokens: 512,
    prompt_cache_miss_tokens: 288,
  };
  assert.deepEqual(fromOpenAIUsage(deepseek), {
    ...emptyUsage(),
    inputTokens: 288,
    cacheReadTokens: 512,
    outputTokens: 50,
  });
});

test('a cache hit reported both ways is subtracted once', () => {
  const u = fromOpenAIUsage({
    prompt_tokens: 800,
    completion_tokens: 50,
    prompt_cache_hit_tokens: 512,
    prompt_tokens_details: { cached_tokens: 512 },
  });
  assert.deepEqual(u, { ...emptyUsage(), inputTokens: 288, cacheReadTokens: 512, outputTokens: 50 });
});

test('missing or null details and missing totals read as zero', () => {
  assert.deepEqual(fromOpenAIUsage({ prompt_tokens: 10, completion_tokens: 5 }), {
    ...emptyUsage(),
    inputTokens: 10,
    outputTokens: 5,
  });
  assert.deepEqual(
    fromOpenAIUsage({
      prompt_tokens: 10,
      completion_tokens: 5,
      prompt_tokens_details: null,
      completion_tokens_details: null,
    }),
    { ...emptyUsage(), inputTokens: 10, outputTokens: 5 },
  );
  assert.deepEqual(fromOpenAIUsage({ prompt_tokens: 10, prompt_tokens_details: {} }), {
    ...emptyUsage(),
    inputTokens: 10,
  });
  assert.deepEqual(fromOpenAIUsage({}), emptyUsage());
});

test('cache writes, where a server reports them, come out of the prompt once and into cacheWriteTokens', () => {
  const openai = fromOpenAIUsage({
    prompt_tokens: 1_000,
    completion_tokens: 10,
    prompt_tokens_details: { cached_tokens: 200, cache_write_tokens: 700 },
  });
  assert.deepEqual(openai, {
    ...emptyUsage(),
    inputTokens: 100,
    cacheReadTokens: 200,
    cacheWriteTokens: 700,
    outputTokens: 10,
  });
  assert.equal(totalTokens(openai), 1_010);
  const litellm = fromOpenAIUsage({ prompt_tokens: 900, completion_tokens: 5, cache_creation_input_tokens: 850 });
  assert.deepEqual(litellm, { ...emptyUsage(), inputTokens: 50, cacheWriteTokens: 850, outputTokens: 5 });
  // Parts larger than the prompt cannot be right: the figures are kept as reported (input goes
  // negative), and the check every upstream usage meets refuses them, so the request is estimated.
  const odd = fromOpenAIUsage({
    prompt_tokens: 100,
    completion_tokens: 1,
    prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 500 },
  });
  assert.deepEqual(odd, {
    ...emptyUsage(),
    inputTokens: -460,
    cacheReadTokens: 60,
    cacheWriteTokens: 500,
    outputTokens: 1,
  });
  assert.match(usageProblem(odd, 1_000_000) ?? '', /./);
});

test('counts that are not non-negative numbers are kept as they are, for the usage check to refuse', () => {
  const u = fromOpenAIUsage({
    prompt_tokens: -5,
    completion_tokens: Number.NaN,
    prompt_tokens_details: { cached_tokens: '3' as unknown as number },
  });
  assert.ok(Number.isNaN(u.inputTokens) && Number.isNaN(u.outputTokens));
  assert.match(usageProblem(u, 1_000_000) ?? '', /./);
  assert.match(usageProblem(fromOpenAIUsage({ prompt_tokens: -5, completion_tokens: 1 }), 1_000_000) ?? '', /./);
});
