import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../gateway/core/canonical.js';
import type { StreamDecoder } from '../../gateway/core/stream-decoder.js';
import { readDecoded } from '../../gateway/core/stream-decoder.js';
import { bindStream, isBound } from '../../gateway/core/signatures.js';
import { readSse, type SseEvent } from '../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../gateway/core/usage.js';
import { AnthropicStreamDecoder, fromStream as anthropicFromStream } from '../../gateway/wire/anthropic/from-stream.js';
import { ChatStreamDecoder, fromStream as chatFromStream } from '../../gateway/wire/openai-chat/from-stream.js';

/**
 * The relay reads a line's stream in one loop (readDecoded: the SSE parsing, the format's decoder and the
 * signatures' binding) where it read it through three async generators (readSse, fromStream, bindStream). The two
 * must give the same events, or the same error, for every stream: the client's bytes are encoded from them.
 */
const LINE = 'line-7';
const estimate: Usage = { ...emptyUsage(), inputTokens: 77 };

/** `text` in network chunks of `size` bytes (splitting multi-byte characters and SSE lines). */
async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

type Outcome = { events: StreamEvent[]; error?: string };

async function collect(events: AsyncIterable<StreamEvent>): Promise<Outcome> {
  const out: StreamEvent[] = [];
  try {
    for await (const ev of events) out.push(ev);
  } catch (err) {
    return { events: out, error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
  return { events: out };
}

type Format = {
  name: string;
  decoder: (u: Usage) => StreamDecoder;
  fromStream: (events: AsyncIterable<SseEvent>, u: Usage) => AsyncIterable<StreamEvent>;
};
const anthropic: Format = {
  name: 'anthropic',
  decoder: (u) => new AnthropicStreamDecoder(u),
  fromStream: anthropicFromStream,
};
const chat: Format = { name: 'openai-chat', decoder: (u) => new ChatStreamDecoder(u), fromStream: chatFromStream };

async function same(format: Format, text: string): Promise<Outcome> {
  let first: Outcome | undefined;
  for (const size of [1, 5, 64, 1 << 20]) {
    const before = await collect(bindStream(format.fromStream(readSse(chunks(text, size)), estimate), LINE));
    const now = await collect(readDecoded(chunks(text, size), format.decoder(estimate), LINE));
    assert.deepEqual(now, before, `${format.name}, ${size}-byte chunks`);
    first ??= now;
  }
  return first!;
}

const ev = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const start = ev('message_start', {
  type: 'message_start',
  message: { id: 'msg_1', model: 'claude-x', content: [], usage: { input_tokens: 12, output_tokens: 1 } },
});
const stopAnthropic =
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }) +
  ev('message_stop', { type: 'message_stop' });

describe('an Anthropic line read in one loop gives what the generators gave', () => {
  test('text, thinking with its signature (bound to the line), a tool call and the stop', async () => {
    const text =
      start +
      ev('ping', { type: 'ping' }) +
      ev('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }) +
      ev('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'hmm — “quoted”' },
      }) +
      ev('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'EqQBsig==' },
      }) +
      ev('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      ev('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }) +
      ev('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'text_delta', text: 'héllo 🌍\nline' },
      }) +
      ev('content_block_stop', { type: 'content_block_stop', index: 1 }) +
      ev('content_block_start', {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'redacted_thinking', data: 'REDACTED' },
      }) +
      ev('content_block_stop', { type: 'content_block_stop', index: 2 }) +
      ev('content_block_start', {
        type: 'content_block_start',
        index: 3,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'ls', input: { a: 1 } },
      }) +
      ev('content_block_stop', { type: 'content_block_stop', index: 3 }) +
      stopAnthropic +
      ev('content_block_start', { type: 'content_block_start', index: 9, content_block: { type: 'text', text: '' } });
    const { events, error } = await same(anthropic, text);
    assert.equal(error, undefined);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'start',
        'block_start',
        'thinking_delta',
        'signature_delta',
        'block_stop',
        'block_start',
        'text_delta',
        'block_stop',
        'block_start',
        'block_stop',
        'block_start',
        'tool_args_delta',
        'block_stop',
        'stop',
      ],
    );
    const signature = events.find((e) => e.type === 'signature_delta');
    assert.ok(signature?.type === 'signature_delta' && isBound(signature.signature));
  });

  test('an in-band error ends the stream; what follows is not read', async () => {
    const text =
      start +
      ev('error', { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }) +
      ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const { events } = await same(anthropic, text);
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'error'],
    );
  });

  test('a stream cut short, a malformed event and a block before message_start fail alike', async () => {
    const cut = await same(
      anthropic,
      start +
        ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    );
    assert.match(cut.error ?? '', /ended before message_stop/);
    const bad = await same(anthropic, start + 'event: content_block_delta\ndata: {"type":\n\n');
    assert.match(bad.error ?? '', /not valid JSON/);
    const early = await same(anthropic, ev('content_block_stop', { type: 'content_block_stop', index: 0 }));
    assert.match(early.error ?? '', /before message_start/);
    // A last event without its blank line is incomplete: the stream was cut there.
    const tail = await same(anthropic, start + stopAnthropic.slice(0, -1));
    assert.match(tail.error ?? '', /ended before message_stop/);
  });
});

const chunk = (delta: unknown, finish: string | null = null, usage: unknown = null): string =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-up', choices: [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`;

describe('an OpenAI chat line read in one loop gives what the generators gave', () => {
  test('reasoning, text, parallel tool calls, usage and [DONE]', async () => {
    const text =
      chunk({ role: 'assistant', content: '' }) +
      chunk({ reasoning_content: 'think' }) +
      chunk({ content: 'héllo 🌍' }) +
      chunk({ tool_calls: [{ index: 0, id: 'c_a', type: 'function', function: { name: 'a', arguments: '{"x"' } }] }) +
      chunk({ tool_calls: [{ index: 1, id: 'c_b', type: 'function', function: { name: 'b', arguments: '' } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }) +
      chunk({}, 'tool_calls') +
      `data: ${JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } })}\n\n` +
      'data: [DONE]\n\n' +
      chunk({ content: 'after the end' });
    const { events, error } = await same(chat, text);
    assert.equal(error, undefined);
    assert.equal(events.at(-1)?.type, 'stop');
    assert.equal(events.filter((e) => e.type === 'block_start').length, 4);
  });

  test('no [DONE] after a finish_reason is a whole answer; without either the stream was cut', async () => {
    const whole = await same(chat, chunk({ content: 'hi' }) + chunk({}, 'stop'));
    assert.deepEqual(
      whole.events.map((e) => e.type),
      ['start', 'block_start', 'text_delta', 'block_stop', 'stop'],
    );
    const cut = await same(chat, chunk({ content: 'hi' }));
    assert.match(cut.error ?? '', /closed the stream before it was complete/);
    assert.deepEqual(
      cut.events.map((e) => e.type),
      ['start', 'block_start', 'text_delta'],
    );
  });

  test('an error chunk ends the stream with its error', async () => {
    const { events } = await same(
      chat,
      chunk({ content: 'hi' }) +
        `data: ${JSON.stringify({ error: { message: 'boom' } })}\n\n` +
        chunk({ content: 'more' }),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'block_start', 'text_delta', 'error'],
    );
  });
});
