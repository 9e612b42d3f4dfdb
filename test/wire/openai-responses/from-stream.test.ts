import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import type { StreamEvent } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import type { SseEvent } from '../../../gateway/core/sse.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { fromStream } from '../../../gateway/wire/openai-responses/from-stream.js';

type Ev = OpenAI.Responses.ResponseStreamEvent;
type NoSeq<T> = T extends unknown ? Omit<T, 'sequence_number'> : never;

const estimate: Usage = { ...emptyUsage(), inputTokens: 77 };
const usage: OpenAI.Responses.ResponseUsage = {
  input_tokens: 900,
  input_tokens_details: { cached_tokens: 512, cache_write_tokens: 0 },
  output_tokens: 120,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 1020,
};

/** A response object as the wire has it (no SDK-computed output_text). */
function response(
  status: OpenAI.Responses.ResponseStatus,
  extra: Partial<OpenAI.Responses.Response> = {},
): OpenAI.Responses.Response {
  const wire: Omit<OpenAI.Responses.Response, 'output_text'> = {
    id: 'resp_up',
    object: 'response',
    created_at: 1,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    model: 'gpt-5',
    output: [],
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    ...extra,
  };
  return wire as OpenAI.Responses.Response;
}

/** Frames events as the upstream sends them, numbering them. */
function sse(...events: NoSeq<Ev>[]): SseEvent[] {
  return events.map((e, i) => ({ event: e.type, data: JSON.stringify({ ...e, sequence_number: i }) }));
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function run(events: SseEvent[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of fromStream(from(events), estimate)) out.push(e);
  return out;
}

const opening: NoSeq<Ev>[] = [
  { type: 'response.created', response: response('in_progress') },
  { type: 'response.in_progress', response: response('in_progress') },
];
const at = (output_index: number, item_id: string) => ({ output_index, item_id });
const text = (t: string): OpenAI.Responses.ResponseOutputText => ({ type: 'output_text', text: t, annotations: [] });
const call: OpenAI.Responses.ResponseFunctionToolCall = {
  type: 'function_call',
  id: 'fc_1',
  call_id: 'call_A',
  name: 'exec_command',
  arguments: '{"cmd":"ls"}',
  status: 'completed',
};

test('reasoning with a summary and encrypted content, a message, a function call; usage from response.completed', async () => {
  const events = await run(
    sse(
      ...opening,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      {
        type: 'response.reasoning_summary_part.added',
        ...at(0, 'rs_1'),
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      },
      { type: 'response.reasoning_summary_text.delta', ...at(0, 'rs_1'), summary_index: 0, delta: '**Plan**' },
      { type: 'response.reasoning_summary_text.done', ...at(0, 'rs_1'), summary_index: 0, text: '**Plan**' },
      {
        type: 'response.reasoning_summary_part.done',
        ...at(0, 'rs_1'),
        summary_index: 0,
        part: { type: 'summary_text', text: '**Plan**' },
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: '**Plan**' }],
          encrypted_content: 'gAAAA-enc',
        },
      },
      {
        type: 'response.output_item.added',
        output_index: 1,
        item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] },
      },
      { type: 'response.content_part.added', ...at(1, 'msg_1'), content_index: 0, part: text('') },
      { type: 'response.output_text.delta', ...at(1, 'msg_1'), content_index: 0, delta: 'Listing ', logprobs: [] },
      { type: 'response.output_text.delta', ...at(1, 'msg_1'), content_index: 0, delta: 'files.', logprobs: [] },
      { type: 'response.output_text.done', ...at(1, 'msg_1'), content_index: 0, text: 'Listing files.', logprobs: [] },
      { type: 'response.content_part.done', ...at(1, 'msg_1'), content_index: 0, part: text('Listing files.') },
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [text('Listing files.')],
        },
      },
      { type: 'response.output_item.added', output_index: 2, item: { ...call, arguments: '', status: 'in_progress' } },
      { type: 'response.function_call_arguments.delta', ...at(2, 'fc_1'), delta: '{"cmd":' },
      { type: 'response.function_call_arguments.delta', ...at(2, 'fc_1'), delta: '"ls"}' },
      {
        type: 'response.function_call_arguments.done',
        ...at(2, 'fc_1'),
        name: 'exec_command',
        arguments: '{"cmd":"ls"}',
      },
      { type: 'response.output_item.done', output_index: 2, item: call },
      { type: 'response.completed', response: response('completed', { usage }) },
    ),
  );
  assert.deepEqual(events, [
    { type: 'start', id: 'resp_up', model: 'gpt-5', usage: estimate },
    { type: 'block_start', index: 0, block: { type: 'thinking', family: 'openai' } },
    { type: 'thinking_delta', index: 0, text: '**Plan**' },
    { type: 'signature_delta', index: 0, signature: 'gAAAA-enc' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'text_delta', index: 1, text: 'Listing ' },
    { type: 'text_delta', index: 1, text: 'files.' },
    { type: 'block_stop', index: 1 },
    { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_A', name: 'exec_command' } },
    { type: 'tool_args_delta', index: 2, json: '{"cmd":' },
    { type: 'tool_args_delta', index: 2, json: '"ls"}' },
    { type: 'block_stop', index: 2 },
    {
      type: 'stop',
      stopReason: 'tool_use',
      usage: { ...emptyUsage(), inputTokens: 388, cacheReadTokens: 512, outputTokens: 120, reasoningTokens: 64 },
    },
  ]);
});

test('summary parts are joined with a blank line; empty reasoning makes no block; a call without arguments is {}', async () => {
  const events = await run(
    sse(
      ...opening,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_0', summary: [] } },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_0', summary: [] } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      {
        type: 'response.reasoning_summary_part.added',
        ...at(1, 'rs_1'),
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      },
      { type: 'response.reasoning_summary_text.delta', ...at(1, 'rs_1'), summary_index: 0, delta: 'One.' },
      {
        type: 'response.reasoning_summary_part.added',
        ...at(1, 'rs_1'),
        summary_index: 1,
        part: { type: 'summary_text', text: '' },
      },
      { type: 'response.reasoning_summary_text.delta', ...at(1, 'rs_1'), summary_index: 1, delta: 'Two.' },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
      { type: 'response.output_item.added', output_index: 2, item: { ...call, arguments: '' } },
      { type: 'response.output_item.done', output_index: 2, item: { ...call, arguments: '' } },
      { type: 'response.completed', response: response('completed') },
    ),
  );
  assert.deepEqual(events.slice(1), [
    { type: 'block_start', index: 0, block: { type: 'thinking', family: 'openai' } },
    { type: 'thinking_delta', index: 0, text: 'One.' },
    { type: 'thinking_delta', index: 0, text: '\n\nTwo.' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_A', name: 'exec_command' } },
    { type: 'tool_args_delta', index: 1, json: '{}' },
    { type: 'block_stop', index: 1 },
    // No usage in the final response: the caller's estimate, flagged.
    { type: 'stop', stopReason: 'tool_use', usage: estimate, usageEstimated: true },
  ]);
});

test('a server that sends only the .done events still gives its text and arguments', async () => {
  const events = await run(
    sse(
      ...opening,
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { type: 'message', id: 'm', role: 'assistant', status: 'in_progress', content: [] },
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          type: 'message',
          id: 'm',
          role: 'assistant',
          status: 'completed',
          content: [text('Hello'), text(' there')],
        },
      },
      { type: 'response.output_item.added', output_index: 1, item: { ...call, arguments: '' } },
      {
        type: 'response.function_call_arguments.done',
        ...at(1, 'fc_1'),
        name: 'exec_command',
        arguments: '{"cmd":"pwd"}',
      },
      { type: 'response.output_item.done', output_index: 1, item: { ...call, arguments: '{"cmd":"pwd"}' } },
      { type: 'response.completed', response: response('completed', { usage }) },
    ),
  );
  assert.deepEqual(events.slice(1, -1), [
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hello' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'text_delta', index: 1, text: ' there' },
    { type: 'block_stop', index: 1 },
    { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_A', name: 'exec_command' } },
    { type: 'tool_args_delta', index: 2, json: '{"cmd":"pwd"}' },
    { type: 'block_stop', index: 2 },
  ]);
});

test('response.incomplete is max_tokens; refusal deltas are text with a refusal stop', async () => {
  const msg = (kind: 'text' | 'refusal'): NoSeq<Ev>[] => [
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'message', id: 'm', role: 'assistant', status: 'in_progress', content: [] },
    },
    kind === 'text'
      ? { type: 'response.output_text.delta', ...at(0, 'm'), content_index: 0, delta: 'cut', logprobs: [] }
      : { type: 'response.refusal.delta', ...at(0, 'm'), content_index: 0, delta: 'No.' },
  ];
  const cut = await run(
    sse(...opening, ...msg('text'), {
      type: 'response.incomplete',
      response: response('incomplete', { incomplete_details: { reason: 'max_output_tokens' }, usage }),
    }),
  );
  assert.deepEqual(cut.slice(1, 4), [
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'text_delta', index: 0, text: 'cut' },
    { type: 'block_stop', index: 0 },
  ]);
  assert.equal((cut.at(-1) as Extract<StreamEvent, { type: 'stop' }>).stopReason, 'max_tokens');
  const refused = await run(
    sse(...opening, ...msg('refusal'), { type: 'response.completed', response: response('completed', { usage }) }),
  );
  assert.deepEqual(refused[2], { type: 'text_delta', index: 0, text: 'No.' });
  assert.equal((refused.at(-1) as Extract<StreamEvent, { type: 'stop' }>).stopReason, 'refusal');
});

test('response.failed and error events become an error event after what was already sent', async () => {
  const failed = await run(
    sse(
      ...opening,
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { type: 'message', id: 'm', role: 'assistant', status: 'in_progress', content: [] },
      },
      { type: 'response.output_text.delta', ...at(0, 'm'), content_index: 0, delta: 'par', logprobs: [] },
      {
        type: 'response.failed',
        response: response('failed', { error: { code: 'server_error', message: 'The server had an error.' } }),
      },
    ),
  );
  assert.deepEqual(
    failed.map((e) => e.type),
    ['start', 'block_start', 'text_delta', 'error'],
  );
  const err = (failed.at(-1) as Extract<StreamEvent, { type: 'error' }>).error;
  assert.deepEqual([err.kind, err.code], ['upstream_error', 'upstream_stream_error']);
  assert.match(err.message, /server_error.*The server had an error/);

  const overloaded = await run(
    sse(...opening, { type: 'error', code: 'server_is_overloaded', message: 'Busy', param: null }),
  );
  assert.equal((overloaded.at(-1) as Extract<StreamEvent, { type: 'error' }>).error.kind, 'upstream_unavailable');
  const nested = await run([
    { event: 'error', data: '{"type":"error","error":{"type":"server_error","code":null,"message":"Oops"}}' },
  ]);
  assert.match((nested[0] as Extract<StreamEvent, { type: 'error' }>).error.message, /Oops/);
});

test('a stream without a terminal event, or with an event that is not JSON, throws', async () => {
  const code = async (events: SseEvent[]): Promise<string> => {
    try {
      await run(events);
    } catch (e) {
      assert.ok(e instanceof GatewayError);
      return e.code;
    }
    return 'no throw';
  };
  assert.equal(await code(sse(...opening)), 'upstream_stream_incomplete');
  assert.equal(await code([{ event: 'response.created', data: '{"type":"response.cre' }]), 'upstream_malformed');
  // Keepalives, annotations and [DONE] from compatible servers are ignored.
  const ok = await run([
    { event: 'keepalive', data: '{"type":"keepalive"}' },
    ...sse(...opening, { type: 'response.completed', response: response('completed', { usage }) }),
    { data: '[DONE]' },
  ]);
  assert.deepEqual(
    ok.map((e) => e.type),
    ['start', 'stop'],
  );
});
