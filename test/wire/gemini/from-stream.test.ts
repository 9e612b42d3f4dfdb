import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FinishReason, type GenerateContentResponse } from '@google/genai';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { readSse, type SseEvent } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { fromStream } from '../../../gateway/wire/gemini/from-stream.js';

type Wire = Pick<
  GenerateContentResponse,
  'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId' | 'promptFeedback'
>;

const estimate: Usage = { ...emptyUsage(), inputTokens: 77 };
const interim = { promptTokenCount: 100, cachedContentTokenCount: 40, totalTokenCount: 100 };
const final = {
  promptTokenCount: 100,
  cachedContentTokenCount: 40,
  candidatesTokenCount: 12,
  thoughtsTokenCount: 8,
  totalTokenCount: 120,
};

function chunk(
  parts: object[],
  extra: { finishReason?: FinishReason; usageMetadata?: Wire['usageMetadata'] } = {},
): SseEvent {
  const c: Wire = {
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(extra.finishReason ? { finishReason: extra.finishReason } : {}),
      },
    ],
    ...(extra.usageMetadata ? { usageMetadata: extra.usageMetadata } : {}),
    modelVersion: 'gemini-3-pro-preview',
    responseId: 'resp9',
  };
  return { data: JSON.stringify(c) };
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function run(events: SseEvent[] | AsyncIterable<SseEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of fromStream(Array.isArray(events) ? from(events) : events, estimate)) out.push(e);
  return out;
}

test('thoughts, text, then whole function calls; the last usage is the total', async () => {
  const events = await run([
    chunk([{ text: 'Planning', thought: true }], { usageMetadata: interim }),
    chunk([{ text: ' the reads.', thought: true, thoughtSignature: 'th-sig' }], { usageMetadata: interim }),
    chunk([{ text: 'Reading ' }], { usageMetadata: interim }),
    chunk(
      [
        { text: 'now.' },
        { functionCall: { name: 'read', args: { p: 'a' } }, thoughtSignature: 'c-sig' },
        { functionCall: { id: 'own', name: 'read', args: { p: 'b' } } },
      ],
      {
        finishReason: FinishReason.STOP,
        usageMetadata: final,
      },
    ),
  ]);
  assert.deepEqual(events, [
    {
      type: 'start',
      id: 'resp9',
      model: 'gemini-3-pro-preview',
      usage: { ...emptyUsage(), inputTokens: 60, cacheReadTokens: 40 },
    },
    { type: 'block_start', index: 0, block: { type: 'thinking', family: 'gemini' } },
    { type: 'thinking_delta', index: 0, text: 'Planning' },
    { type: 'thinking_delta', index: 0, text: ' the reads.' },
    { type: 'signature_delta', index: 0, signature: 'th-sig' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'text_delta', index: 1, text: 'Reading ' },
    { type: 'text_delta', index: 1, text: 'now.' },
    { type: 'block_stop', index: 1 },
    {
      type: 'block_start',
      index: 2,
      block: { type: 'tool_call', id: 'call_resp9_0', name: 'read', signature: 'c-sig', signatureFamily: 'gemini' },
    },
    { type: 'tool_args_delta', index: 2, json: '{"p":"a"}' },
    { type: 'block_stop', index: 2 },
    { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'own', name: 'read' } },
    { type: 'tool_args_delta', index: 3, json: '{"p":"b"}' },
    { type: 'block_stop', index: 3 },
    {
      type: 'stop',
      stopReason: 'tool_use',
      usage: { ...emptyUsage(), inputTokens: 60, cacheReadTokens: 40, outputTokens: 20, reasoningTokens: 8 },
    },
  ]);
});

test('usage after the finish chunk still counts; without any, the estimate is used and marked', async () => {
  const late = await run([
    chunk([{ text: 'Hi' }], { finishReason: FinishReason.STOP }),
    { data: JSON.stringify({ usageMetadata: final, responseId: 'resp9' }) },
  ]);
  assert.deepEqual(late.at(-1), {
    type: 'stop',
    stopReason: 'end_turn',
    usage: { ...emptyUsage(), inputTokens: 60, cacheReadTokens: 40, outputTokens: 20, reasoningTokens: 8 },
  });
  const none = await run([chunk([{ text: 'Hi' }]), chunk([{ text: '' }], { finishReason: FinishReason.MAX_TOKENS })]);
  assert.deepEqual(none[0], { type: 'start', id: 'resp9', model: 'gemini-3-pro-preview', usage: estimate });
  assert.deepEqual(none.at(-1), { type: 'stop', stopReason: 'max_tokens', usage: estimate, usageEstimated: true });
  assert.equal(none.filter((e) => e.type === 'text_delta').length, 1, 'an empty text part sends nothing');
});

test('a blocked prompt ends as a refusal; safety finishes too', async () => {
  const blocked = await run([
    { data: JSON.stringify({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: interim }) },
  ]);
  assert.deepEqual(
    blocked.map((e) => e.type),
    ['start', 'stop'],
  );
  assert.equal((blocked[1] as { stopReason: string }).stopReason, 'refusal');
  const safety = await run([chunk([{ text: 'I' }]), chunk([], { finishReason: FinishReason.SAFETY })]);
  assert.equal((safety.at(-1) as { stopReason: string }).stopReason, 'refusal');
});

test('an error chunk and a malformed function call become error events', async () => {
  const err = await run([
    chunk([{ text: 'Hi' }]),
    { data: JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }) },
  ]);
  const last = err.at(-1);
  assert.ok(
    last?.type === 'error' && last.error.kind === 'upstream_unavailable' && /overloaded/.test(last.error.message),
  );
  const bad = await run([chunk([], { finishReason: FinishReason.MALFORMED_FUNCTION_CALL })]);
  const e = bad.at(-1);
  assert.ok(e?.type === 'error' && e.error.code === 'upstream_malformed_function_call');
});

test('a stream cut before any finishReason, and a chunk that is not JSON, throw', async () => {
  await assert.rejects(
    run([chunk([{ text: 'Hi' }])]),
    (err: unknown) => err instanceof GatewayError && err.code === 'upstream_stream_incomplete',
  );
  await assert.rejects(
    run([]),
    (err: unknown) => err instanceof GatewayError && err.code === 'upstream_stream_incomplete',
  );
  await assert.rejects(
    run([chunk([{ text: 'Hi' }]), { data: '{"candidates":[' }]),
    (err: unknown) => err instanceof GatewayError && err.code === 'upstream_malformed',
  );
});

test('raw SSE as Google frames it (CRLF), through the shared SSE reader', async () => {
  const text = [
    chunk([{ text: 'Hé' }]),
    chunk([{ text: 'llo' }], { finishReason: FinishReason.STOP, usageMetadata: final }),
  ]
    .map((c) => `data: ${c.data}\r\n\r\n`)
    .join('');
  const bytes = new TextEncoder().encode(text);
  const pieces = Array.from({ length: bytes.length }, (_, i) => bytes.slice(i, i + 1));
  const events = await run(readSse(from(pieces)));
  assert.equal(events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join(''), 'Héllo');
});
