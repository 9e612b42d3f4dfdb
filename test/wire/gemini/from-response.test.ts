import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockedReason, FinishReason, type GenerateContentResponse } from '@google/genai';
import type { CanonicalResponse } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { fromResponse } from '../../../gateway/wire/gemini/from-response.js';

/** The wire fields of a GenerateContentResponse (the SDK class adds getters such as `text`). */
type Wire = Pick<
  GenerateContentResponse,
  'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId' | 'promptFeedback'
>;

const usageMetadata = {
  promptTokenCount: 120,
  candidatesTokenCount: 30,
  thoughtsTokenCount: 50,
  totalTokenCount: 200,
  cachedContentTokenCount: 20,
};
const answer = (parts: object[], finishReason: FinishReason = FinishReason.STOP, top: Partial<Wire> = {}): Wire => ({
  candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
  usageMetadata,
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'rX-1.a',
  ...top,
});

test('a Gemini 3 tool-calling answer: thoughts joined, text joined, ids made up, signatures kept, STOP read as tool_use', () => {
  const wire = answer([
    { text: 'Let me ', thought: true },
    { text: 'look.', thought: true, thoughtSignature: 'th-sig' },
    { text: 'I will list ' },
    { text: 'files.', thoughtSignature: 'text-sig' },
    { functionCall: { name: 'ls', args: { dir: '.' } }, thoughtSignature: 'call-sig' },
    { functionCall: { name: 'ls' } },
  ]);
  const expected: CanonicalResponse = {
    id: 'rX-1.a',
    model: 'gemini-3-pro-preview',
    content: [
      { type: 'thinking', text: 'Let me look.', signature: 'th-sig', family: 'gemini' },
      { type: 'text', text: 'I will list files.' },
      {
        type: 'tool_call',
        id: 'call_rX-1_a_0',
        name: 'ls',
        input: { dir: '.' },
        signature: 'call-sig',
        signatureFamily: 'gemini',
      },
      { type: 'tool_call', id: 'call_rX-1_a_1', name: 'ls', input: {} },
    ],
    stopReason: 'tool_use',
    usage: { ...emptyUsage(), inputTokens: 100, cacheReadTokens: 20, outputTokens: 80, reasoningTokens: 50 },
  };
  assert.deepEqual(fromResponse(wire), expected);
});

test("Gemini's own call ids are kept; made-up ids without a responseId are deterministic and Anthropic-valid", () => {
  assert.equal(
    (fromResponse(answer([{ functionCall: { id: 'g-77', name: 'f', args: {} } }])).content[0] as { id: string }).id,
    'g-77',
  );
  const noId = answer([{ functionCall: { name: 'f', args: { a: 1 } } }], FinishReason.STOP, { responseId: undefined });
  const a = fromResponse(noId).content[0] as { id: string };
  assert.match(a.id, /^call_[a-f0-9]{16}_0$/);
  assert.equal((fromResponse(structuredClone(noId)).content[0] as { id: string }).id, a.id);
});

test('finish reasons and blocked prompts', () => {
  const stop = (finish: FinishReason, parts: object[] = [{ text: 'x' }]) =>
    fromResponse(answer(parts, finish)).stopReason;
  assert.equal(stop(FinishReason.STOP), 'end_turn');
  assert.equal(stop(FinishReason.MAX_TOKENS), 'max_tokens');
  assert.equal(stop(FinishReason.MAX_TOKENS, [{ functionCall: { name: 'f', args: {} } }]), 'max_tokens');
  for (const f of [
    FinishReason.SAFETY,
    FinishReason.RECITATION,
    FinishReason.BLOCKLIST,
    FinishReason.PROHIBITED_CONTENT,
    FinishReason.SPII,
  ])
    assert.equal(stop(f), 'refusal', f);
  assert.equal(stop(FinishReason.OTHER), 'end_turn');
  const blocked = fromResponse({
    promptFeedback: { blockReason: BlockedReason.SAFETY },
    usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
    responseId: 'b',
  });
  assert.deepEqual([blocked.content, blocked.stopReason, blocked.usage.inputTokens], [[], 'refusal', 9]);
});

test('a malformed function call is an upstream error, not an empty answer', () => {
  const wire = {
    candidates: [
      {
        content: { role: 'model', parts: [] },
        finishReason: FinishReason.MALFORMED_FUNCTION_CALL,
        finishMessage: 'Malformed function call: print(',
        index: 0,
      },
    ],
  };
  assert.throws(
    () => fromResponse(wire),
    (err: unknown) =>
      err instanceof GatewayError &&
      err.kind === 'upstream_error' &&
      err.code === 'upstream_malformed_function_call' &&
      /print\(/.test(err.message),
  );
});

test('error bodies map like HTTP errors; other bodies that are not answers are malformed', () => {
  assert.throws(
    () => fromResponse({ error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } }),
    (err: unknown) => err instanceof GatewayError && err.kind === 'rate_limit' && /exhausted/.test(err.message),
  );
  assert.throws(
    () => fromResponse({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }),
    (err: unknown) => err instanceof GatewayError && err.kind === 'upstream_unavailable',
  );
  for (const body of ['nope', [], {}, { candidates: [] }]) {
    assert.throws(
      () => fromResponse(body),
      (err: unknown) => err instanceof GatewayError && err.code === 'upstream_malformed',
      JSON.stringify(body),
    );
  }
});

test('no usageMetadata: empty usage, marked estimated; image output becomes an image block', () => {
  const res = fromResponse({
    candidates: [
      {
        content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }] },
        finishReason: FinishReason.STOP,
      },
    ],
  });
  assert.deepEqual(res, {
    id: '',
    model: '',
    content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }],
    stopReason: 'end_turn',
    usage: emptyUsage(),
    usageEstimated: true,
  });
});
