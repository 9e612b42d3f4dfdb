import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { readSse } from '../../../gateway/core/sse.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { unmark } from '../../../gateway/core/reasoning.js';
import { encodeStream } from '../../../gateway/wire/anthropic/encode-stream.js';

const ctx = { requestedModel: 'claude-opus-4-8', requestId: 'req_42' };

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function text(events: StreamEvent[]): Promise<string> {
  let out = '';
  for await (const chunk of encodeStream(from(events), ctx)) out += chunk;
  return out;
}

async function wire(events: StreamEvent[]): Promise<{ event: string | undefined; data: Record<string, unknown> }[]> {
  const out = [];
  for await (const e of readSse(from([await text(events)])))
    out.push({ event: e.event, data: JSON.parse(e.data) as Record<string, unknown> });
  return out;
}

/** Answers every request with `body` as an event stream, so the official SDK reads what encodeStream wrote. */
function sdkReading(body: string): Anthropic {
  return new Anthropic({
    apiKey: 'sk-test',
    baseURL: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
  });
}

const prompt = { ...emptyUsage(), inputTokens: 1200, cacheReadTokens: 30_000, cacheWriteTokens: 500 };
const toolTurn: StreamEvent[] = [
  { type: 'start', id: 'chatcmpl-1', model: 'gpt-5.2', usage: prompt },
  { type: 'block_start', index: 0, block: { type: 'thinking', family: 'anthropic' } },
  { type: 'thinking_delta', index: 0, text: 'Let me ' },
  { type: 'thinking_delta', index: 0, text: 'look. 🙂' },
  { type: 'signature_delta', index: 0, signature: 'EqQBsig==' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Reading the file.' },
  { type: 'block_stop', index: 1 },
  {
    type: 'block_start',
    index: 2,
    block: {
      type: 'tool_call',
      id: 'functions.Read:0',
      name: 'Read',
      signature: 'gemini-sig',
      signatureFamily: 'gemini',
    },
  },
  { type: 'tool_args_delta', index: 2, json: '{"file_path":' },
  { type: 'tool_args_delta', index: 2, json: '"/repo/a.ts"}' },
  { type: 'block_stop', index: 2 },
  { type: 'stop', stopReason: 'tool_use', usage: { ...prompt, outputTokens: 87, reasoningTokens: 20 } },
];

describe('encodeStream', () => {
  test('writes Messages SSE framing: event line, data line, blank line; no [DONE]', async () => {
    const out = await text([
      { type: 'start', id: 'msg_1', model: 'x', usage: { ...emptyUsage(), inputTokens: 9 } },
      { type: 'stop', stopReason: 'end_turn', usage: { ...emptyUsage(), inputTokens: 9, outputTokens: 1 } },
    ]);
    assert.equal(
      out,
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-8","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}\n\n' +
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":9,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });

  test('a thinking + text + tool-use turn, event by event', async () => {
    const events = await wire(toolTurn);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'message_start',
        ...[
          'content_block_start',
          'content_block_delta',
          'content_block_delta',
          'content_block_delta',
          'content_block_stop',
        ],
        ...['content_block_start', 'content_block_delta', 'content_block_stop'],
        ...['content_block_start', 'content_block_delta', 'content_block_stop'],
        ...['content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop'],
        'message_delta',
        'message_stop',
      ],
    );
    for (const e of events) assert.equal(e.data.type, e.event, 'data.type repeats the event name');
    const start = events[0]?.data as unknown as Anthropic.RawMessageStartEvent;
    assert.equal(start.message.id, 'msg_req_42');
    assert.equal(start.message.model, 'claude-opus-4-8');
    assert.deepEqual(start.message.usage, {
      input_tokens: 1200,
      output_tokens: 0,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: 30_000,
    });
    assert.deepEqual(events[1]?.data, {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    assert.deepEqual(events[4]?.data, {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: 'EqQBsig==' },
    });
    // The Gemini signature of the call rides in an empty thinking block before it (docs/protocols.md §6.6).
    assert.deepEqual(events[9]?.data, {
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    const carrier = (events[10]?.data as { delta: { signature: string } }).delta.signature;
    // The id is made Anthropic-safe.
    const toolBlock = (events[12]?.data as unknown as Anthropic.RawContentBlockStartEvent)
      .content_block as Anthropic.ToolUseBlock;
    assert.match(toolBlock.id, /^functions_Read_0_[0-9a-f]{12}$/);
    assert.deepEqual(unmark(carrier), {
      kind: 'call',
      family: 'gemini',
      callId: toolBlock.id,
      signature: 'gemini-sig',
    });
    assert.deepEqual(toolBlock, { type: 'tool_use', id: toolBlock.id, name: 'Read', input: {} });
    assert.deepEqual(events[13]?.data, {
      type: 'content_block_delta',
      index: 3,
      delta: { type: 'input_json_delta', partial_json: '{"file_path":' },
    });
    assert.deepEqual(events[16]?.data, {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: {
        input_tokens: 1200,
        output_tokens: 87,
        cache_creation_input_tokens: 500,
        cache_read_input_tokens: 30_000,
        output_tokens_details: { thinking_tokens: 20 },
      },
    });
  });

  test('the official SDK assembles the stream into the final message', async () => {
    const client = sdkReading(await text(toolTurn));
    const final = await client.messages
      .stream({ model: 'claude-opus-4-8', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] })
      .finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    assert.equal(final.usage.input_tokens, 1200);
    assert.equal(final.usage.output_tokens, 87);
    assert.deepEqual(
      final.content.map((b) => (b.type === 'tool_use' ? { type: b.type, name: b.name, input: b.input } : b)),
      [
        { type: 'thinking', thinking: 'Let me look. 🙂', signature: 'EqQBsig==' },
        { type: 'text', text: 'Reading the file.' },
        { type: 'thinking', thinking: '', signature: (final.content[2] as Anthropic.ThinkingBlock).signature },
        { type: 'tool_use', name: 'Read', input: { file_path: '/repo/a.ts' } },
      ],
    );
  });

  test('an error event ends the stream with event: error and no message_stop; the SDK raises it', async () => {
    const out = await text([
      { type: 'start', id: 'msg_1', model: 'x', usage: prompt },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hal' },
      {
        type: 'error',
        error: new GatewayError('upstream_unavailable', 'Upstream unavailable (overloaded_error): Overloaded'),
      },
      { type: 'text_delta', index: 0, text: 'never sent' },
    ]);
    assert.ok(
      out.endsWith(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Upstream unavailable (overloaded_error): Overloaded"}}\n\n',
      ),
    );
    assert.ok(!out.includes('message_stop') && !out.includes('never sent'));
    const stream = sdkReading(out).messages.stream({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'q' }],
    });
    await assert.rejects(
      stream.finalMessage(),
      (err: unknown) => err instanceof Anthropic.APIError && /Overloaded/.test(err.message),
    );
  });

  test('an error before anything else is the only event', async () => {
    assert.deepEqual(await wire([{ type: 'error', error: new GatewayError('upstream_timeout', 'late') }]), [
      { event: 'error', data: { type: 'error', error: { type: 'timeout_error', message: 'late' } } },
    ]);
  });

  test('a stream that skips start still opens with message_start', async () => {
    const events = await wire([
      { type: 'block_start', index: 0, block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'block_stop', index: 0 },
      { type: 'stop', stopReason: 'context_exceeded', stopSequence: undefined, usage: emptyUsage() },
    ]);
    assert.deepEqual(
      events.map((e) => e.event),
      ['message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop'],
    );
    assert.deepEqual(events[1]?.data.content_block, { type: 'redacted_thinking', data: 'opaque' });
    assert.deepEqual((events[3]?.data.delta as Record<string, unknown>).stop_reason, 'model_context_window_exceeded');
  });

  test('errors thrown by the source propagate to the caller', async () => {
    async function* broken(): AsyncGenerator<StreamEvent> {
      yield { type: 'start', id: 'msg_1', model: 'x', usage: prompt };
      throw new GatewayError('upstream_error', 'cut');
    }
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const chunk of encodeStream(broken(), ctx)) seen.push(chunk);
    }, /cut/);
    assert.equal(seen.length, 1);
  });
});
