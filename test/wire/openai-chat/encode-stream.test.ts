import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { Stream } from 'openai/core/streaming';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { writtenStream } from '../../../gateway/core/codec.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { readSse } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { makeCodec } from '../../../gateway/wire/openai-chat/client-codec.js';
import { encodeStream } from '../../../gateway/wire/openai-chat/encode-stream.js';

const ctx = { requestedModel: 'my-alias', requestId: 'req_xyz' };
const usage: Usage = { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 5, outputTokens: 9, reasoningTokens: 3 };

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function collect(events: StreamEvent[], includeUsage: boolean): Promise<string> {
  let out = '';
  for await (const s of encodeStream(from(events), ctx, { includeUsage })) out += s;
  return out;
}

/** The data of every event, JSON-parsed unless it is [DONE]. */
async function chunks(text: string): Promise<(Record<string, any> | '[DONE]')[]> {
  const out: (Record<string, any> | '[DONE]')[] = [];
  for await (const e of readSse(from([text]))) out.push(e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data));
  return out;
}

/** What the official SDK makes of the stream: its own SSE parser and chunk accumulator. */
async function sdkFinal(text: string): Promise<OpenAI.Chat.ChatCompletion> {
  const s = Stream.fromSSEResponse<OpenAI.Chat.ChatCompletionChunk>(
    new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
    new AbortController(),
  );
  return ChatCompletionStream.fromReadableStream(s.toReadableStream()).finalChatCompletion();
}

const toolEvents: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'up', usage: { ...emptyUsage(), inputTokens: 20 } },
  { type: 'block_start', index: 0, block: { type: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'secret' },
  { type: 'signature_delta', index: 0, signature: 'sig' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking ' },
  { type: 'text_delta', index: 1, text: 'both.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, json: '{"city":' },
  { type: 'tool_args_delta', index: 2, json: '"Paris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'toolu_b', name: 'now' } },
  { type: 'tool_args_delta', index: 3, json: '{}' },
  { type: 'block_stop', index: 3 },
  { type: 'stop', stopReason: 'tool_use', usage },
];

test('text and tool calls, without usage: chunk shapes and order', async () => {
  const text = await collect(toolEvents, false);
  const cs = await chunks(text);
  assert.equal(cs.at(-1), '[DONE]');
  const body = cs.slice(0, -1) as Record<string, any>[];
  assert.deepEqual(
    body.map((c) => c.choices[0].delta),
    [
      { role: 'assistant', content: '' },
      { reasoning_content: 'secret' },
      { content: 'Checking ' },
      { content: 'both.' },
      { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'now', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      {},
    ],
  );
  assert.deepEqual(
    body.map((c) => c.choices[0].finish_reason),
    [...Array(9).fill(null), 'tool_calls'],
  );
  for (const c of body) {
    assert.equal(c.id, 'chatcmpl-xyz');
    assert.equal(c.object, 'chat.completion.chunk');
    assert.equal(c.created, body[0]!.created);
    assert.equal(c.model, 'my-alias');
    assert.equal('usage' in c, false);
  }
  assert.doesNotMatch(text, /"sig"/, 'a thinking signature has no Chat Completions field');
});

test('with include_usage: usage:null on every chunk, then a choices:[] usage chunk before [DONE]', async () => {
  const cs = await chunks(await collect(toolEvents, true));
  const usageChunk = cs.at(-2) as Record<string, any>;
  assert.deepEqual(usageChunk.choices, []);
  assert.deepEqual(usageChunk.usage, {
    prompt_tokens: 25,
    completion_tokens: 9,
    total_tokens: 34,
    prompt_tokens_details: { cached_tokens: 5, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 3 },
  });
  for (const c of cs.slice(0, -2)) assert.equal((c as Record<string, any>).usage, null);
});

test('the openai SDK assembles the stream into the expected completion', async () => {
  const final = await sdkFinal(await collect(toolEvents, true));
  const choice = final.choices[0]!;
  assert.equal(choice.message.content, 'Checking both.');
  assert.deepEqual(
    choice.message.tool_calls?.map((t) =>
      t.type === 'function' ? [t.id, t.function.name, JSON.parse(t.function.arguments)] : [],
    ),
    [
      ['toolu_a', 'weather', { city: 'Paris' }],
      ['toolu_b', 'now', {}],
    ],
  );
  assert.equal(choice.finish_reason, 'tool_calls');
  assert.equal(final.id, 'chatcmpl-xyz');
});

test('an error event ends the stream with an error chunk and no [DONE]; the SDK raises it', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'chatcmpl-up', model: 'up', usage: emptyUsage() },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'partial' },
    {
      type: 'error',
      error: new GatewayError('upstream_error', 'Upstream error during the stream: overloaded', {
        code: 'upstream_stream_error',
      }),
    },
  ];
  const text = await collect(events, true);
  const cs = await chunks(text);
  assert.equal((cs[0] as Record<string, any>).id, 'chatcmpl-up');
  assert.deepEqual(cs.at(-1), {
    error: {
      message: 'Upstream error during the stream: overloaded',
      type: 'server_error',
      param: null,
      code: 'upstream_stream_error',
    },
  });
  assert.doesNotMatch(text, /\[DONE\]/);
  await assert.rejects(sdkFinal(text), /overloaded/);
});

test('a stream that ends without stop or error gets an error chunk, not a fake finish', async () => {
  const cs = await chunks(await collect([{ type: 'start', id: 'x', model: 'up', usage: emptyUsage() }], false));
  assert.equal(cs.length, 2);
  assert.equal((cs[1] as Record<string, any>).error.code, 'upstream_stream_incomplete');
});

test('a stop without start still opens with the role chunk', async () => {
  const cs = await chunks(await collect([{ type: 'stop', stopReason: 'max_tokens', usage: emptyUsage() }], false));
  assert.deepEqual(
    cs.map((c) => (c === '[DONE]' ? c : [c.choices[0].delta, c.choices[0].finish_reason])),
    [[{ role: 'assistant', content: '' }, null], [{}, 'length'], '[DONE]'],
  );
});

test("makeCodec fixes include_usage for the codec's stream writer", async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'up', usage: emptyUsage() },
    { type: 'stop', stopReason: 'end_turn', usage },
  ];
  let withUsage = '';
  for await (const s of writtenStream(makeCodec(true).streamWriter(ctx), from(events))) withUsage += s;
  let without = '';
  for await (const s of writtenStream(makeCodec(false).streamWriter(ctx), from(events))) without += s;
  assert.match(withUsage, /"prompt_tokens":25/);
  assert.doesNotMatch(without, /usage/);
});
