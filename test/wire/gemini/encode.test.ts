import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FinishReason, type GenerateContentResponse } from '@google/genai';
import type { CanonicalResponse, StopReason } from '../../../gateway/core/canonical.js';
import { mark } from '../../../gateway/core/reasoning.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { encodeResponse, toGeminiUsage } from '../../../gateway/wire/gemini/encode.js';
import { withSdk } from './sdk-server.js';

/** The wire fields of a GenerateContentResponse (the SDK class adds getters such as `text`). */
type Wire = Pick<GenerateContentResponse, 'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId'>;

const ctx = { requestedModel: 'gemini-alias', requestId: 'req_abc' };

const answer: CanonicalResponse = {
  id: 'msg_up',
  model: 'claude-up',
  content: [
    { type: 'thinking', text: 'Need the weather.', signature: 'anthropic-sig', family: 'anthropic' },
    { type: 'thinking', text: 'And a Gemini thought.', signature: 'g-sig', family: 'gemini' },
    { type: 'redacted_thinking', data: 'xxx', family: 'anthropic' },
    { type: 'text', text: 'Checking.' },
    { type: 'text', text: '' },
    { type: 'tool_call', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
    { type: 'tool_call', id: 'call_2', name: 'now', input: {}, signature: 'g-call-sig', signatureFamily: 'gemini' },
  ],
  stopReason: 'tool_use',
  usage: {
    ...emptyUsage(),
    inputTokens: 100,
    cacheReadTokens: 40,
    cacheWriteTokens: 10,
    outputTokens: 30,
    reasoningTokens: 12,
  },
};

test('a tool-calling answer: parts, STOP, usage with cache inside the prompt and thoughts outside the candidates', () => {
  const expected: Wire = {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'Need the weather.', thought: true },
            { text: 'And a Gemini thought.', thought: true, thoughtSignature: 'g-sig' },
            { text: 'Checking.' },
            // Anthropic's thinking and redacted thinking, signatures and all, ride under Tollgate's mark on the next call.
            {
              functionCall: { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } },
              thoughtSignature: mark({
                kind: 'bundle',
                blocks: [
                  { type: 'thinking', text: 'Need the weather.', signature: 'anthropic-sig', family: 'anthropic' },
                  { type: 'redacted_thinking', data: 'xxx', family: 'anthropic' },
                ],
              }),
            },
            { functionCall: { id: 'call_2', name: 'now', args: {} }, thoughtSignature: 'g-call-sig' },
          ],
        },
        finishReason: FinishReason.STOP,
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 150,
      candidatesTokenCount: 18,
      totalTokenCount: 180,
      cachedContentTokenCount: 40,
      thoughtsTokenCount: 12,
    },
    modelVersion: 'gemini-alias',
    responseId: 'req_abc',
  };
  assert.deepEqual(encodeResponse(answer, ctx), expected);
});

test('finish reasons (docs/protocols.md §6.5)', () => {
  const cases: [StopReason, string][] = [
    ['end_turn', 'STOP'],
    ['stop_sequence', 'STOP'],
    ['tool_use', 'STOP'],
    ['pause_turn', 'STOP'],
    ['max_tokens', 'MAX_TOKENS'],
    ['context_exceeded', 'MAX_TOKENS'],
    ['refusal', 'SAFETY'],
  ];
  for (const [stopReason, finish] of cases) {
    assert.equal(encodeResponse({ ...answer, stopReason }, ctx).candidates?.[0]?.finishReason, finish, stopReason);
  }
});

test('usage: audio and image input come back as modality details; no optional fields when zero', () => {
  assert.deepEqual(toGeminiUsage({ ...emptyUsage(), inputTokens: 5, outputTokens: 2 }), {
    promptTokenCount: 5,
    candidatesTokenCount: 2,
    totalTokenCount: 7,
  });
  assert.deepEqual(
    toGeminiUsage({
      ...emptyUsage(),
      inputTokens: 5,
      cacheReadTokens: 1,
      audioInputTokens: 3,
      imageInputTokens: 4,
      outputTokens: 2,
    }),
    {
      promptTokenCount: 13,
      candidatesTokenCount: 2,
      totalTokenCount: 15,
      cachedContentTokenCount: 1,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 6 },
        { modality: 'AUDIO', tokenCount: 3 },
        { modality: 'IMAGE', tokenCount: 4 },
      ],
    },
  );
});

test('@google/genai reads the answer: text, function calls, usage, finish reason', async () => {
  await withSdk(
    () => ({ chunks: [JSON.stringify(encodeResponse(answer, ctx))] }),
    async (ai, seen) => {
      const res = await ai.models.generateContent({ model: 'gemini-alias', contents: 'Weather in Paris?' });
      assert.equal(seen[0]?.url, '/v1beta/models/gemini-alias:generateContent');
      assert.equal(res.text, 'Checking.');
      assert.deepEqual(res.functionCalls, [
        { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } },
        { id: 'call_2', name: 'now', args: {} },
      ]);
      assert.equal(res.candidates?.[0]?.finishReason, FinishReason.STOP);
      assert.equal(res.usageMetadata?.promptTokenCount, 150);
      assert.equal(res.usageMetadata?.thoughtsTokenCount, 12);
      assert.equal(res.modelVersion, 'gemini-alias');
      assert.equal(res.responseId, 'req_abc');
    },
  );
});
