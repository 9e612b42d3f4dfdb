import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import type { SseEvent } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { fromStream } from '../../../gateway/wire/openai-chat/from-stream.js';

type Delta = OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };
type Fragment = OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall;

const estimate: Usage = { ...emptyUsage(), inputTokens: 77 };

function chunk(delta: Delta, finish: OpenAI.Chat.ChatCompletionChunk.Choice['finish_reason'] = null): SseEvent {
  const c: OpenAI.Chat.ChatCompletionChunk = {
    id: 'chatcmpl-9',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-up',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return { data: JSON.stringify({ ...c, usage: null }) };
}
const usageChunk = (u: OpenAI.CompletionUsage): SseEvent => ({
  data: JSON.stringify({
    id: 'chatcmpl-9',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-up',
    choices: [],
    usage: u,
  }),
});
const DONE: SseEvent = { data: '[DONE]' };
const role = chunk({ role: 'assistant', content: '' });
const call = (index: number, id: string, name: string): SseEvent =>
  chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
const args = (...parts: [number, string][]): SseEvent =>
  chunk({ tool_calls: parts.map(([index, a]): Fragment => ({ index, function: { arguments: a } })) });

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function run(events: SseEvent[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of fromStream(from(events), estimate)) out.push(e);
  return out;
}

/** Each block as [block start, joined text or arguments], in order; checks contiguity on the way. */
function blocks(events: StreamEvent[]): [unknown, string][] {
  const out: [unknown, string][] = [];
  let open: number | null = null;
  for (const e of events) {
    if (e.type === 'block_start') {
      assert.equal(open, null, 'a block started while another was open');
      assert.equal(e.index, out.length, 'block indexes are contiguous from 0');
      open = e.index;
      out.push([e.block, '']);
    } else if (e.type === 'text_delta' || e.type === 'thinking_delta' || e.type === 'tool_args_delta') {
      assert.equal(e.index, open);
      out[e.index]![1] += e.type === 'tool_args_delta' ? e.json : e.text;
    } else if (e.type === 'block_stop') {
      assert.equal(e.index, open);
      open = null;
    }
  }
  assert.equal(open, null, 'every block was stopped');
  return out;
}

test('text then a tool call, usage chunk after the finish chunk', async () => {
  const events = await run([
    role,
    chunk({ content: 'Let me ' }),
    chunk({ content: 'look.' }),
    call(0, 'call_1', 'read'),
    args([0, '{"path"']),
    args([0, ':"a.txt"}']),
    chunk({}, 'tool_calls'),
    usageChunk({
      prompt_tokens: 90,
      completion_tokens: 12,
      total_tokens: 102,
      prompt_tokens_details: { cached_tokens: 40 },
    }),
    DONE,
  ]);
  assert.deepEqual(events, [
    { type: 'start', id: 'chatcmpl-9', model: 'gpt-up', usage: estimate },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Let me ' },
    { type: 'text_delta', index: 0, text: 'look.' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_1', name: 'read' } },
    { type: 'tool_args_delta', index: 1, json: '{"path"' },
    { type: 'tool_args_delta', index: 1, json: ':"a.txt"}' },
    { type: 'block_stop', index: 1 },
    {
      type: 'stop',
      stopReason: 'tool_use',
      usage: { ...emptyUsage(), inputTokens: 50, cacheReadTokens: 40, outputTokens: 12 },
    },
  ]);
});

test('two parallel tool calls with interleaved fragments become two consecutive complete blocks', async () => {
  const events = await run([
    role,
    call(0, 'call_a', 'weather'),
    call(1, 'call_b', 'time'),
    args([0, '{"city":'], [1, '{"tz":']),
    args([1, '"CET"}']),
    args([0, '"Paris",']),
    args([0, '"days":2}']),
    chunk({}, 'tool_calls'),
    DONE,
  ]);
  const bs = blocks(events);
  assert.deepEqual(
    bs.map(([start, json]) => [start, JSON.parse(json)]),
    [
      [
        { type: 'tool_call', id: 'call_a', name: 'weather' },
        { city: 'Paris', days: 2 },
      ],
      [{ type: 'tool_call', id: 'call_b', name: 'time' }, { tz: 'CET' }],
    ],
  );
  // The first call streamed live; the interleaved second one arrives whole.
  assert.equal(events.filter((e) => e.type === 'tool_args_delta' && e.index === 0).length, 3);
  assert.deepEqual(
    events.filter((e) => e.type === 'tool_args_delta' && e.index === 1),
    [{ type: 'tool_args_delta', index: 1, json: '{"tz":"CET"}' }],
  );
  // No usage chunk: stop carries the caller's estimate.
  assert.deepEqual(events.at(-1), { type: 'stop', stopReason: 'tool_use', usage: estimate, usageEstimated: true });
});

test('parallel calls sent one after another all stream live', async () => {
  const events = await run([
    role,
    call(0, 'a', 'f'),
    args([0, '{"x"']),
    args([0, ':1}']),
    call(1, 'b', 'g'),
    args([1, '{"y"']),
    args([1, ':2}']),
    chunk({}, 'tool_calls'),
    DONE,
  ]);
  assert.deepEqual(
    events
      .filter((e) => e.type === 'tool_args_delta')
      .map((e) => (e.type === 'tool_args_delta' ? [e.index, e.json] : null)),
    [
      [0, '{"x"'],
      [0, ':1}'],
      [1, '{"y"'],
      [1, ':2}'],
    ],
  );
  assert.deepEqual(blocks(events).length, 2);
});

test('a tool call with no arguments yields {}', async () => {
  const events = await run([role, call(0, 'call_n', 'now'), chunk({}, 'tool_calls'), DONE]);
  assert.deepEqual(blocks(events), [[{ type: 'tool_call', id: 'call_n', name: 'now' }, '{}']]);
});

test('reasoning_content is a thinking block before the text', async () => {
  const events = await run([
    role,
    chunk({ reasoning_content: 'Hmm, ' }),
    chunk({ reasoning_content: '6*7.' }),
    chunk({ content: '42' }),
    chunk({}, 'stop'),
    DONE,
  ]);
  assert.deepEqual(blocks(events), [
    [{ type: 'thinking', family: 'openai-chat' }, 'Hmm, 6*7.'],
    [{ type: 'text' }, '42'],
  ]);
  assert.deepEqual(events.at(-1), { type: 'stop', stopReason: 'end_turn', usage: estimate, usageEstimated: true });
});

test('finish reasons map back', async () => {
  const stopOf = async (finish: 'stop' | 'length' | 'content_filter') =>
    (await run([role, chunk({ content: 'x' }), chunk({}, finish), DONE])).at(-1);
  assert.deepEqual(await stopOf('length'), {
    type: 'stop',
    stopReason: 'max_tokens',
    usage: estimate,
    usageEstimated: true,
  });
  assert.deepEqual(await stopOf('content_filter'), {
    type: 'stop',
    stopReason: 'refusal',
    usage: estimate,
    usageEstimated: true,
  });
  assert.deepEqual(await stopOf('stop'), {
    type: 'stop',
    stopReason: 'end_turn',
    usage: estimate,
    usageEstimated: true,
  });
});

test('text streams live: the first delta comes out before the upstream sends more', async () => {
  let sent = 0;
  async function* upstream(): AsyncGenerator<SseEvent> {
    for (const e of [role, chunk({ content: 'a' }), chunk({ content: 'b' }), chunk({}, 'stop'), DONE]) {
      sent++;
      yield e;
    }
  }
  const it = fromStream(upstream(), estimate)[Symbol.asyncIterator]();
  const seen: string[] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    if (r.value.type === 'text_delta') seen.push(`${r.value.text}@${sent}`);
  }
  assert.deepEqual(seen, ['a@2', 'b@3']);
});

test('missing [DONE]: complete after a finish_reason, an error without one', async () => {
  const ok = await run([role, chunk({ content: 'hi' }), chunk({}, 'stop')]);
  assert.equal(ok.at(-1)?.type, 'stop');
  await assert.rejects(
    run([role, chunk({ content: 'hi' })]),
    (e: unknown) => e instanceof GatewayError && e.code === 'upstream_stream_incomplete' && e.status === 502,
  );
  await assert.rejects(run([]), (e: unknown) => e instanceof GatewayError && e.code === 'upstream_stream_incomplete');
});

test('an in-band error chunk becomes an error event and ends the stream', async () => {
  const events = await run([
    role,
    chunk({ content: 'par' }),
    { data: '{"error":{"message":"The server is overloaded","type":"server_error","code":null}}' },
    chunk({ content: 'never' }),
  ]);
  const last = events.at(-1);
  assert.equal(last?.type, 'error');
  assert.ok(
    last?.type === 'error' && /overloaded/.test(last.error.message) && last.error.code === 'upstream_stream_error',
  );
  assert.equal(events.filter((e) => e.type === 'text_delta').length, 1);
});

test('non-JSON data is a malformed upstream', async () => {
  await assert.rejects(
    run([role, { data: '{"id":"chatcmpl-9","choices":[{"delta":{"content":"tru' }]),
    (e: unknown) => e instanceof GatewayError && e.code === 'upstream_malformed',
  );
});

test('[DONE] without a finish chunk still ends with start and stop', async () => {
  assert.deepEqual(await run([DONE]), [
    { type: 'start', id: '', model: '', usage: estimate },
    { type: 'stop', stopReason: 'end_turn', usage: estimate, usageEstimated: true },
  ]);
});
