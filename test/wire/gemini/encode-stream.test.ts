import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FinishReason, type GenerateContentResponse } from '@google/genai';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { writtenStream } from '../../../gateway/core/codec.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { mark } from '../../../gateway/core/reasoning.js';
import { readSse } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { makeCodec } from '../../../gateway/wire/gemini/client-codec.js';
import { encodeStream, encodeStreamAsJsonArray } from '../../../gateway/wire/gemini/encode-stream.js';
import { withSdk } from './sdk-server.js';

type Wire = Pick<GenerateContentResponse, 'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId'>;

const ctx = { requestedModel: 'gemini-alias', requestId: 'req_s' };
const usage: Usage = { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 5, outputTokens: 9, reasoningTokens: 3 };
const finalUsage = {
  promptTokenCount: 25,
  candidatesTokenCount: 6,
  totalTokenCount: 34,
  cachedContentTokenCount: 5,
  thoughtsTokenCount: 3,
};

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function collect(gen: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const s of gen) out.push(s);
  return out;
}

async function chunks(events: StreamEvent[]): Promise<Record<string, any>[]> {
  const text = (await collect(encodeStream(from(events), ctx))).join('');
  const out: Record<string, any>[] = [];
  for await (const e of readSse(from([text]))) {
    assert.equal(e.event, undefined, 'no event names');
    out.push(JSON.parse(e.data));
  }
  return out;
}

const toolEvents: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'up', usage: { ...emptyUsage(), inputTokens: 20 } },
  { type: 'block_start', index: 0, block: { type: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'I should' },
  { type: 'thinking_delta', index: 0, text: ' check.' },
  { type: 'signature_delta', index: 0, signature: 'anthropic-sig' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking ' },
  { type: 'text_delta', index: 1, text: 'both.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, json: '{"city":' },
  { type: 'tool_args_delta', index: 2, json: '"Paris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'call_b', name: 'now', signature: 'g-sig' } },
  { type: 'block_stop', index: 3 },
  { type: 'stop', stopReason: 'tool_use', usage },
];

const resp = (parts: object[], extra: { finishReason?: FinishReason } = {}, top: Partial<Wire> = {}): Wire => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
  modelVersion: 'gemini-alias',
  responseId: 'req_s',
  ...top,
});

test('text deltas go out as incremental parts; tool calls whole; finish and usage ride on the last chunk', async () => {
  assert.deepEqual(await chunks(toolEvents), [
    resp([{ text: 'I should', thought: true }]),
    resp([{ text: ' check.', thought: true }]),
    resp([{ text: 'Checking ' }]),
    resp([{ text: 'both.' }]),
    // Another family's thinking rides, signature and all, under Tollgate's mark on the next call.
    resp([
      {
        functionCall: { id: 'toolu_a', name: 'weather', args: { city: 'Paris' } },
        thoughtSignature: mark({
          kind: 'bundle',
          blocks: [{ type: 'thinking', text: 'I should check.', signature: 'anthropic-sig' }],
        }),
      },
    ]),
    resp(
      [{ functionCall: { id: 'call_b', name: 'now', args: {} }, thoughtSignature: 'g-sig' }],
      { finishReason: FinishReason.STOP },
      { usageMetadata: finalUsage },
    ),
  ]);
});

test("Gemini's own thought signature goes out on an empty thought part, as Gemini 3 streams it", async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'm', model: 'up', usage },
    { type: 'block_start', index: 0, block: { type: 'thinking', family: 'gemini' } },
    { type: 'thinking_delta', index: 0, text: 'hm' },
    { type: 'signature_delta', index: 0, signature: 'CiOwn' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'text_delta', index: 1, text: 'ok' },
    { type: 'block_stop', index: 1 },
    { type: 'stop', stopReason: 'end_turn', usage },
  ];
  assert.deepEqual(await chunks(events), [
    resp([{ text: 'hm', thought: true }]),
    resp([{ text: '', thought: true, thoughtSignature: 'CiOwn' }]),
    resp([{ text: 'ok' }], { finishReason: FinishReason.STOP }, { usageMetadata: finalUsage }),
  ]);
});

test('an answer with no content still ends with a finish chunk', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: '', model: 'up', usage },
    { type: 'stop', stopReason: 'max_tokens', usage },
  ];
  assert.deepEqual(await chunks(events), [
    resp([], { finishReason: FinishReason.MAX_TOKENS }, { usageMetadata: finalUsage }),
  ]);
});

test('an error event ends the stream with an error chunk after what was held back', async () => {
  const events: StreamEvent[] = [
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'error', error: new GatewayError('upstream_unavailable', 'Upstream unavailable (HTTP 503)') },
    { type: 'text_delta', index: 0, text: 'never sent' },
  ];
  assert.deepEqual(await chunks(events), [
    resp([{ text: 'Hi' }]),
    {
      error: {
        code: 503,
        message: 'Upstream unavailable (HTTP 503)',
        status: 'UNAVAILABLE',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'upstream_unavailable', domain: 'tollgate' },
        ],
      },
    },
  ]);
});

test('a provider stream that ends without stop gets an error chunk, not a fake finish', async () => {
  const out = await chunks([
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hi' },
  ]);
  assert.equal(out.length, 2);
  assert.equal(out[1]?.error.code, 502);
  assert.equal(out[1]?.error.details[0].reason, 'upstream_stream_incomplete');
});

test('without alt=sse the same chunks form one JSON array, written incrementally', async () => {
  const pieces = await collect(encodeStreamAsJsonArray(from(toolEvents), ctx));
  // One piece per chunk as it is known, the array's close with the last.
  assert.equal(pieces.length, 6);
  assert.ok(pieces[0]?.startsWith('[{'));
  assert.ok(pieces.slice(1).every((p) => p.startsWith(',\r\n{')));
  assert.ok(pieces.at(-1)?.endsWith('}]'));
  const parsed = JSON.parse(pieces.join('')) as Wire[];
  assert.deepEqual(parsed, await chunks(toolEvents));
  const incomplete = {
    error: {
      code: 502,
      message: 'Upstream error: the upstream closed the stream before it was complete.',
      status: 'INTERNAL',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'upstream_stream_incomplete',
          domain: 'tollgate',
        },
      ],
    },
  };
  assert.deepEqual(
    await collect(writtenStream(makeCodec('m', { stream: true, sse: false }).streamWriter(ctx), from<StreamEvent>([]))),
    [`[${JSON.stringify(incomplete)}]`],
  );
});

test('@google/genai streams it: text, function calls and usage; the chat helper keeps the turn in its history', async () => {
  const sse = await collect(encodeStream(from(toolEvents), ctx));
  await withSdk(
    () => ({ headers: { 'content-type': 'text/event-stream' }, chunks: sse }),
    async (ai, seen) => {
      let text = '';
      const calls: unknown[] = [];
      let last: GenerateContentResponse | undefined;
      for await (const c of await ai.models.generateContentStream({ model: 'gemini-alias', contents: 'Weather?' })) {
        text += c.text ?? '';
        calls.push(...(c.functionCalls ?? []));
        last = c;
      }
      assert.equal(seen[0]?.url, '/v1beta/models/gemini-alias:streamGenerateContent?alt=sse');
      assert.equal(text, 'Checking both.');
      assert.deepEqual(calls, [
        { id: 'toolu_a', name: 'weather', args: { city: 'Paris' } },
        { id: 'call_b', name: 'now', args: {} },
      ]);
      assert.equal(last?.candidates?.[0]?.finishReason, FinishReason.STOP);
      assert.equal(last?.usageMetadata?.totalTokenCount, 34);

      const chat = ai.chats.create({ model: 'gemini-alias' });
      for await (const _ of await chat.sendMessageStream({ message: 'Weather?' })) {
        // drain
      }
      // The helper records a turn only if every chunk was valid and one had a finishReason; it keeps one Content per chunk.
      const history = chat.getHistory(true);
      assert.deepEqual(
        history.map((c) => c.role),
        ['user', ...sse.map(() => 'model')],
      );
    },
  );
});

test('@google/genai raises an error chunk as an ApiError', async () => {
  const events: StreamEvent[] = [
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'error', error: new GatewayError('rate_limit', 'Upstream rate limit', { retryAfter: 2 }) },
  ];
  const sse = await collect(encodeStream(from(events), ctx));
  await withSdk(
    () => ({ headers: { 'content-type': 'text/event-stream' }, chunks: sse }),
    async (ai) => {
      const got: string[] = [];
      await assert.rejects(
        (async () => {
          for await (const c of await ai.models.generateContentStream({ model: 'm', contents: 'x' }))
            got.push(c.text ?? '');
        })(),
        (err: unknown) => err instanceof ApiError && err.status === 429 && /Upstream rate limit/.test(err.message),
      );
      assert.deepEqual(got, ['Hi']);
    },
  );
});
