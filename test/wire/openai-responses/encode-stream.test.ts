import { unmark } from '../../../gateway/core/reasoning.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { writtenStream } from '../../../gateway/core/codec.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { readSse } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import type { ResponsesBody } from '../../../gateway/wire/openai-responses/encode.js';
import { encodeStream, encodeStreamError } from '../../../gateway/wire/openai-responses/encode-stream.js';
import { makeCodec } from '../../../gateway/wire/openai-responses/client-codec.js';

const ctx = { requestedModel: 'my-alias', requestId: 'req_xyz' };
const usage: Usage = { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 5, outputTokens: 9, reasoningTokens: 3 };

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function collect(events: StreamEvent[], opts = {}): Promise<string> {
  let out = '';
  for await (const s of encodeStream(from(events), ctx, opts)) out += s;
  return out;
}

/** Every event as [event name, parsed data]. */
async function parsed(text: string): Promise<[string | undefined, Record<string, any>][]> {
  const out: [string | undefined, Record<string, any>][] = [];
  for await (const e of readSse(from([text]))) out.push([e.event, JSON.parse(e.data)]);
  return out;
}

/** The openai SDK as Codex-like clients use it, fed our stream chunk by chunk as the response body. */
function client(events: StreamEvent[]): OpenAI {
  const bytes = new TextEncoder();
  const fetch = async (): Promise<Response> => {
    const body = ReadableStream.from(
      (async function* () {
        for await (const s of encodeStream(from(events), ctx)) yield bytes.encode(s);
      })(),
    );
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return new OpenAI({ apiKey: 'sk-test', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 });
}

const toolEvents: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'up', usage: { ...emptyUsage(), inputTokens: 20 } },
  { type: 'block_start', index: 0, block: { type: 'thinking', family: 'openai' } },
  { type: 'thinking_delta', index: 0, text: 'Need ' },
  { type: 'thinking_delta', index: 0, text: 'both.' },
  { type: 'signature_delta', index: 0, signature: 'gAAAAenc' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking ' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'text' } },
  { type: 'text_delta', index: 2, text: 'both.' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 3, json: '{"city":' },
  { type: 'tool_args_delta', index: 3, json: '"Paris"}' },
  { type: 'block_stop', index: 3 },
  { type: 'block_start', index: 4, block: { type: 'tool_call', id: 'toolu_b', name: 'now' } },
  { type: 'tool_args_delta', index: 4, json: '{}' },
  { type: 'block_stop', index: 4 },
  { type: 'stop', stopReason: 'tool_use', usage },
];

test('event order, names, sequence numbers, and usage in response.completed', async () => {
  const text = await collect(toolEvents);
  const events = await parsed(text);
  assert.deepEqual(
    events.map(([name]) => name),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  events.forEach(([name, data], i) => {
    assert.equal(data.type, name);
    assert.equal(data.sequence_number, i);
  });
  assert.equal(events[0]![1].response.status, 'in_progress');
  assert.deepEqual(events[0]![1].response.output, []);
  const done = events.at(-1)![1].response as ResponsesBody;
  assert.equal(done.id, 'resp_xyz');
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.usage, {
    input_tokens: 25,
    input_tokens_details: { cached_tokens: 5, cache_write_tokens: 0 },
    output_tokens: 9,
    output_tokens_details: { reasoning_tokens: 3 },
    total_tokens: 34,
  });
  assert.deepEqual(done.output, [
    {
      type: 'reasoning',
      id: 'rs_xyz_0',
      summary: [{ type: 'summary_text', text: 'Need both.' }],
      encrypted_content: 'gAAAAenc',
    },
    {
      type: 'message',
      id: 'msg_xyz_1',
      role: 'assistant',
      status: 'completed',
      content: [
        { type: 'output_text', text: 'Checking ', annotations: [] },
        { type: 'output_text', text: 'both.', annotations: [] },
      ],
    },
    {
      type: 'function_call',
      id: 'fc_xyz_2',
      call_id: 'toolu_a',
      name: 'weather',
      arguments: '{"city":"Paris"}',
      status: 'completed',
    },
    { type: 'function_call', id: 'fc_xyz_3', call_id: 'toolu_b', name: 'now', arguments: '{}', status: 'completed' },
  ]);
  // The function call's done event names the function; OpenAI's own encrypted reasoning goes out as it is.
  assert.equal(events[22]![1].name, 'weather');
  assert.doesNotMatch(text, /\[DONE\]/);
});

test('the openai SDK stream helper assembles the final response from our stream', async () => {
  const stream = client(toolEvents).responses.stream({ model: 'my-alias', input: 'weather?' });
  const deltas: string[] = [];
  stream.on('response.output_text.delta', (e) => deltas.push(e.snapshot));
  const final = await stream.finalResponse();
  // The SDK's snapshot is per content part: each text block is its own part.
  assert.deepEqual(deltas, ['Checking ', 'both.']);
  assert.equal(final.output_text, 'Checking both.');
  assert.equal(final.status, 'completed');
  assert.equal(final.usage?.total_tokens, 34);
  assert.deepEqual(
    final.output.flatMap((c) => (c.type === 'function_call' ? [[c.call_id, c.name, JSON.parse(c.arguments)]] : [])),
    [
      ['toolu_a', 'weather', { city: 'Paris' }],
      ['toolu_b', 'now', {}],
    ],
  );
});

test('an error event becomes error + response.failed; the SDK iterator sees both and ends', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'up', usage: emptyUsage() },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'partial' },
    { type: 'error', error: new GatewayError('rate_limit', 'Upstream rate limit', { code: 'upstream_rate_limited' }) },
  ];
  const parsedEvents = await parsed(await collect(events));
  const [errName, err] = parsedEvents.at(-2)!;
  assert.equal(errName, 'error');
  assert.deepEqual(err, {
    type: 'error',
    sequence_number: parsedEvents.length - 2,
    code: 'rate_limit_exceeded',
    message: 'Upstream rate limit',
    param: null,
  });
  const failed = parsedEvents.at(-1)![1];
  assert.equal(failed.type, 'response.failed');
  assert.equal(failed.response.status, 'failed');
  assert.deepEqual(failed.response.error, { code: 'rate_limit_exceeded', message: 'Upstream rate limit' });
  // The message item never finished, so the failed response has no output.
  assert.deepEqual(failed.response.output, []);

  const seen: string[] = [];
  for await (const e of await client(events).responses.create({ model: 'my-alias', input: 'x', stream: true }))
    seen.push(e.type);
  assert.deepEqual(seen.slice(-2), ['error', 'response.failed']);
});

test('max_tokens ends with response.incomplete, which the SDK accepts as final', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'up', usage: emptyUsage() },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'cut' },
    { type: 'stop', stopReason: 'max_tokens', usage },
  ];
  const last = (await parsed(await collect(events))).at(-1)![1];
  assert.equal(last.type, 'response.incomplete');
  assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' });
  const final = await client(events).responses.stream({ model: 'my-alias', input: 'x' }).finalResponse();
  assert.equal(final.status, 'incomplete');
  assert.equal(final.output_text, 'cut');
});

test('a stream that just ends, or starts with stop or error, still opens with response.created', async () => {
  const cut = await parsed(await collect([{ type: 'start', id: 'x', model: 'up', usage: emptyUsage() }]));
  assert.deepEqual(
    cut.map(([n]) => n),
    ['response.created', 'response.in_progress', 'error', 'response.failed'],
  );
  assert.equal(cut[2]![1].code, 'upstream_stream_incomplete');
  const bare = await parsed(await collect([{ type: 'stop', stopReason: 'end_turn', usage: emptyUsage() }]));
  assert.deepEqual(
    bare.map(([n]) => n),
    ['response.created', 'response.in_progress', 'response.completed'],
  );
  const early = await parsed(
    await collect([{ type: 'error', error: new GatewayError('upstream_unavailable', 'down') }]),
  );
  assert.deepEqual(
    early.map(([n]) => n),
    ['response.created', 'response.in_progress', 'error', 'response.failed'],
  );
});

test('a signature alone makes a reasoning item with encrypted_content; redacted thinking is carried; onResponse sees the final response; namespaces come back', async () => {
  let final: ResponsesBody | undefined;
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'up', usage: emptyUsage() },
    { type: 'block_start', index: 0, block: { type: 'thinking', family: 'openai' } },
    { type: 'signature_delta', index: 0, signature: 'gAAAAsig' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'redacted_thinking', data: 'zz', family: 'anthropic' } },
    { type: 'block_stop', index: 1 },
    // OpenAI's reasoning with neither text nor encrypted_content carries nothing.
    { type: 'block_start', index: 2, block: { type: 'thinking', family: 'openai' } },
    { type: 'block_stop', index: 2 },
    { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'call_1', name: 'search_docs' } },
    { type: 'tool_args_delta', index: 3, json: '{"q":"x"}' },
    { type: 'block_stop', index: 3 },
    { type: 'stop', stopReason: 'tool_use', usage },
  ];
  let text = '';
  const codec = makeCodec({ namespaces: new Map([['search_docs', 'mcp__docs__']]), onResponse: (r) => (final = r) });
  for await (const s of writtenStream(codec.streamWriter(ctx), from(events))) text += s;
  const names = (await parsed(text)).map(([n, d]) =>
    n === 'response.output_item.added' ? `${n}:${d.item.type}:${d.item.namespace}` : n,
  );
  assert.deepEqual(names, [
    'response.created',
    'response.in_progress',
    'response.output_item.added:reasoning:undefined',
    'response.output_item.done',
    'response.output_item.added:reasoning:undefined',
    'response.output_item.done',
    'response.output_item.added:function_call:mcp__docs__',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.completed',
  ]);
  assert.deepEqual(final?.output.slice(0, 1), [
    { type: 'reasoning', id: 'rs_xyz_0', summary: [], encrypted_content: 'gAAAAsig' },
  ]);
  assert.deepEqual(unmark((final?.output[1] as { encrypted_content?: string }).encrypted_content), {
    kind: 'redacted',
    family: 'anthropic',
    data: 'zz',
  });
  assert.deepEqual(final?.output[2], {
    type: 'function_call',
    id: 'fc_xyz_2',
    call_id: 'call_1',
    name: 'search_docs',
    arguments: '{"q":"x"}',
    status: 'completed',
    namespace: 'mcp__docs__',
  });
});

test("another family's thinking streams its text, then its mark in output_item.done; a signed call is preceded by its carrier", async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'up', usage: emptyUsage() },
    { type: 'block_start', index: 0, block: { type: 'thinking', family: 'anthropic' } },
    { type: 'thinking_delta', index: 0, text: 'claude thinks' },
    { type: 'signature_delta', index: 0, signature: 'EqSig' },
    { type: 'block_stop', index: 0 },
    {
      type: 'block_start',
      index: 1,
      block: { type: 'tool_call', id: 'call_2', name: 'f', signature: 'CiSig', signatureFamily: 'gemini' },
    },
    { type: 'tool_args_delta', index: 1, json: '{}' },
    { type: 'block_stop', index: 1 },
    { type: 'stop', stopReason: 'tool_use', usage },
  ];
  let text = '';
  for await (const s of writtenStream(makeCodec({}).streamWriter(ctx), from(events))) text += s;
  const done = (await parsed(text)).filter(([n]) => n === 'response.output_item.done').map(([, d]) => d.item);
  assert.deepEqual(
    done.map((i) => [i.type, i.summary?.[0]?.text, unmark(i.encrypted_content)]),
    [
      ['reasoning', 'claude thinks', { kind: 'thinking', family: 'anthropic', signature: 'EqSig' }],
      ['reasoning', undefined, { kind: 'call', family: 'gemini', callId: 'call_2', signature: 'CiSig' }],
      ['function_call', undefined, undefined],
    ],
  );
});

test('encodeStreamError: one error event for the pass-through path', () => {
  const text = encodeStreamError(new GatewayError('insufficient_funds', 'Wallet empty'), 17);
  assert.equal(
    text,
    'event: error\ndata: {"type":"error","sequence_number":17,"code":"insufficient_quota","message":"Wallet empty","param":null}\n\n',
  );
});
