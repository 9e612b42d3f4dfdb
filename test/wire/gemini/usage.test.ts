import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MediaModality, type GenerateContentResponseUsageMetadata } from '@google/genai';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { fromGeminiUsage } from '../../../gateway/wire/gemini/usage.js';

test('cached tokens come out of the prompt; thoughts are added to the candidates', () => {
  const u: GenerateContentResponseUsageMetadata = {
    promptTokenCount: 1000,
    cachedContentTokenCount: 600,
    candidatesTokenCount: 50,
    thoughtsTokenCount: 200,
    totalTokenCount: 1250,
  };
  assert.deepEqual(fromGeminiUsage(u), {
    ...emptyUsage(),
    inputTokens: 400,
    cacheReadTokens: 600,
    outputTokens: 250,
    reasoningTokens: 200,
  });
});

test('tool-use prompt tokens are input; uncached audio and image tokens get their own buckets', () => {
  const u: GenerateContentResponseUsageMetadata = {
    promptTokenCount: 1000,
    cachedContentTokenCount: 300,
    toolUsePromptTokenCount: 25,
    candidatesTokenCount: 10,
    promptTokensDetails: [
      { modality: MediaModality.TEXT, tokenCount: 500 },
      { modality: MediaModality.AUDIO, tokenCount: 400 },
      { modality: MediaModality.IMAGE, tokenCount: 100 },
    ],
    cacheTokensDetails: [
      { modality: MediaModality.TEXT, tokenCount: 200 },
      { modality: MediaModality.AUDIO, tokenCount: 100 },
    ],
  };
  // 1000 prompt = 300 cached + 300 uncached audio + 100 image + 300 other; plus 25 tool-use prompt.
  assert.deepEqual(fromGeminiUsage(u), {
    ...emptyUsage(),
    inputTokens: 325,
    cacheReadTokens: 300,
    outputTokens: 10,
    audioInputTokens: 300,
    imageInputTokens: 100,
  });
});

test('missing and null fields count as zero; nonsense is carried as it came, for relay/usage.ts to refuse', () => {
  assert.deepEqual(fromGeminiUsage(undefined), emptyUsage());
  assert.deepEqual(fromGeminiUsage({ promptTokenCount: 7 }), { ...emptyUsage(), inputTokens: 7 });
  const junk = fromGeminiUsage({ promptTokenCount: -3, candidatesTokenCount: 'x', promptTokensDetails: 'no' });
  assert.equal(junk.inputTokens, -3);
  assert.ok(Number.isNaN(junk.outputTokens), 'a string is no count');
});
