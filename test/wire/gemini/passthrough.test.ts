/** The gemini pass-through: the request as it goes up, and the tap reading the answer stream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { GeminiStreamTap, geminiPassthrough } from '../../../gateway/wire/gemini/passthrough.js';

const chunk = (parts: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({ data: JSON.stringify({ candidates: [{ content: { role: 'model', parts } }], ...extra }) });

describe('GeminiStreamTap', () => {
  test('only the last usage counts, and only once a chunk carried a finishReason', () => {
    const tap = new GeminiStreamTap();
    tap.onEvent(chunk([{ text: 'Hel' }], { usageMetadata: { promptTokenCount: 8 } }));
    assert.equal(tap.usage(), undefined, 'interim chunks carry prompt-only usage');
    tap.onEvent(chunk([{ functionCall: { name: 'f', args: { a: 1 } } }]));
    const last = { candidates: [{ content: { parts: [{ text: 'lo' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 5 } };
    tap.onEvent({ data: JSON.stringify(last) });
    assert.equal(tap.complete(), true);
    assert.deepEqual(tap.usage(), { ...emptyUsage(), inputTokens: 8, outputTokens: 5 });
    assert.equal(tap.produced(), 'Hel{"name":"f","args":{"a":1}}lo');
  });

  test('an error chunk is an in-band upstream error', () => {
    const tap = new GeminiStreamTap();
    tap.onEvent({ data: JSON.stringify({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }) });
    assert.equal(tap.error()?.code, 'upstream_stream_error');
  });

  test('a truncated chunk is refused', () => {
    assert.throws(() => new GeminiStreamTap().onEvent({ data: '{"candidates":[' }), SyntaxError);
  });
});

describe('geminiPassthrough', () => {
  test('puts the model in the path, SSE for a stream, and sends the body as it came', () => {
    const raw = '{"contents":[{"parts":[{"text":"hi"}]}]}';
    assert.deepEqual(geminiPassthrough(JSON.parse(raw), raw, false).request('gemini-2.5-flash'), { path: '/v1beta/models/gemini-2.5-flash:generateContent', headers: {}, body: raw });
    assert.equal(geminiPassthrough(JSON.parse(raw), raw, true).request('tuned/model 1').path, '/v1beta/models/tuned%2Fmodel%201:streamGenerateContent?alt=sse');
  });

  test('reads usage and what was produced from a whole answer', () => {
    const answer = { candidates: [{ content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1 } };
    assert.deepEqual(geminiPassthrough({}, '{}', false).readAnswer(answer), { usage: { ...emptyUsage(), inputTokens: 4, outputTokens: 1 }, produced: 'ok' });
    assert.deepEqual(geminiPassthrough({}, '{}', false).readAnswer({ candidates: [] }), { usage: undefined, produced: '' });
  });
});
