import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { readSse } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { fromStream } from '../../../gateway/wire/anthropic/from-stream.js';

type Wire =
  Anthropic.RawMessageStreamEvent | { type: 'ping' } | { type: 'error'; error: { type: string; message: string } };

/** Writes events as Anthropic does and reads them back in 7-byte network chunks (splitting multi-byte characters). */
async function* sse(events: Wire[], tail = ''): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(
    events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('') + tail,
  );
  for (let i = 0; i < bytes.length; i += 7) yield bytes.slice(i, i + 7);
}

async function run(events: Wire[], estimate: Usage = emptyUsage(), tail = ''): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of fromStream(readSse(sse(events, tail)), estimate)) out.push(ev);
  return out;
}

const startUsage: Anthropic.Usage = {
  input_tokens: 472,
  output_tokens: 2,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 25_000,
  cache_creation: null,
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: 'standard',
  speed: null,
};

function messageStart(usage: Anthropic.Usage = startUsage): Anthropic.RawMessageStartEvent {
  return {
    type: 'message_start',
    message: {
      id: 'msg_014p7',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-8',
      container: null,
      diagnostics: null,
      stop_details: null,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  };
}

function messageDelta(
  stop: Anthropic.StopReason,
  usage: Partial<Anthropic.MessageDeltaUsage>,
  stopSequence: string | null = null,
): Anthropic.RawMessageDeltaEvent {
  return {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: stopSequence, container: null, stop_details: null },
    usage: {
      input_tokens: null,
      output_tokens: 0,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      output_tokens_details: null,
      server_tool_use: null,
      ...usage,
    },
  };
}

const caller = { type: 'direct' } as const;

describe('fromStream', () => {
  test('a thinking + text + tool-use turn with pings, server-tool blocks and cumulative usage', async () => {
    const wire: Wire[] = [
      messageStart(),
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm, 你好 🙂' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBsig==' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {}, caller },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '', citations: null } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Reading.' } },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'content_block_start',
        index: 3,
        content_block: { type: 'tool_use', id: 'toolu_01', name: 'Read', input: {}, caller },
      },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"file_path": "/a' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '.ts"}' } },
      { type: 'content_block_stop', index: 3 },
      messageDelta('tool_use', { output_tokens: 40 }),
      // Totals are cumulative: the last message_delta wins; nothing is added up.
      messageDelta('tool_use', {
        output_tokens: 95,
        input_tokens: 472,
        cache_read_input_tokens: 25_000,
        output_tokens_details: { thinking_tokens: 30 },
      }),
      { type: 'message_stop' },
    ];
    const prompt = { ...emptyUsage(), inputTokens: 472, cacheReadTokens: 25_000 };
    assert.deepEqual(await run(wire, { ...emptyUsage(), inputTokens: 99_999 }), [
      { type: 'start', id: 'msg_014p7', model: 'claude-opus-4-8', usage: { ...prompt, outputTokens: 2 } },
      { type: 'block_start', index: 0, block: { type: 'thinking', family: 'anthropic' } },
      { type: 'thinking_delta', index: 0, text: 'Hmm, 你好 🙂' },
      { type: 'signature_delta', index: 0, signature: 'EqQBsig==' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'text_delta', index: 1, text: 'Reading.' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'toolu_01', name: 'Read' } },
      { type: 'tool_args_delta', index: 2, json: '{"file_path": "/a' },
      { type: 'tool_args_delta', index: 2, json: '.ts"}' },
      { type: 'block_stop', index: 2 },
      { type: 'stop', stopReason: 'tool_use', usage: { ...prompt, outputTokens: 95, reasoningTokens: 30 } },
    ]);
  });

  test('zero prompt usage in message_start: the estimate goes in start and in the final usage', async () => {
    const estimate = { ...emptyUsage(), inputTokens: 1_234 };
    const events = await run(
      [
        messageStart({ ...startUsage, input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 }),
        messageDelta('stop_sequence', { output_tokens: 7 }, 'END'),
        { type: 'message_stop' },
      ],
      estimate,
    );
    assert.deepEqual(events, [
      { type: 'start', id: 'msg_014p7', model: 'claude-opus-4-8', usage: estimate },
      {
        type: 'stop',
        stopReason: 'stop_sequence',
        stopSequence: 'END',
        usage: { ...estimate, outputTokens: 7 },
        usageEstimated: true,
      },
    ]);
  });

  test('a tool_use start that already holds its input, and a redacted thinking block', async () => {
    const events = await run([
      messageStart(),
      { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'EmwK' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_9', name: 'Now', input: { tz: 'UTC' }, caller },
      },
      { type: 'content_block_stop', index: 1 },
      messageDelta('model_context_window_exceeded', { output_tokens: 3 }),
      { type: 'message_stop' },
    ]);
    assert.deepEqual(events.slice(1, -1), [
      { type: 'block_start', index: 0, block: { type: 'redacted_thinking', data: 'EmwK', family: 'anthropic' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'toolu_9', name: 'Now' } },
      { type: 'tool_args_delta', index: 1, json: '{"tz":"UTC"}' },
      { type: 'block_stop', index: 1 },
    ]);
    assert.equal((events.at(-1) as { stopReason: string }).stopReason, 'context_exceeded');
  });

  test('event: error after the 200 becomes an error event and ends the stream', async () => {
    const overloaded = await run([
      messageStart(),
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      { type: 'message_stop' },
    ]);
    assert.equal(overloaded.length, 2);
    const err = (overloaded[1] as { error: GatewayError }).error;
    assert.ok(err instanceof GatewayError);
    assert.deepEqual(
      [err.kind, err.status, err.code, err.message],
      ['upstream_unavailable', 503, 'upstream_unavailable', 'Upstream unavailable (overloaded_error): Overloaded'],
    );
    const api = await run([{ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }]);
    assert.deepEqual(
      api.map((e) => e.type === 'error' && [e.error.kind, e.error.status]),
      [['upstream_error', 502]],
    );
  });

  test('a stream that ends without message_stop is incomplete', async () => {
    const seen: StreamEvent[] = [];
    await assert.rejects(
      async () => {
        for await (const ev of fromStream(
          readSse(
            sse([
              messageStart(),
              { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } },
            ]),
          ),
          emptyUsage(),
        ))
          seen.push(ev);
      },
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_stream_incomplete' && e.status === 502,
    );
    assert.deepEqual(
      seen.map((e) => e.type),
      ['start', 'block_start'],
    );
  });

  test('malformed streams are upstream errors', async () => {
    await assert.rejects(
      run([messageStart()], emptyUsage(), 'event: content_block_delta\ndata: {"type":\n\n'),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_malformed',
    );
    await assert.rejects(
      run([{ type: 'content_block_stop', index: 0 }]),
      (e: unknown) => e instanceof GatewayError && /before message_start/.test(e.message),
    );
  });
});
