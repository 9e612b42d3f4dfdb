/**
 * Responses conversation state through the canonical model (docs/protocols.md §3.1): the
 * assistant message's `phase`, compaction items and `context_management`, read from clients and
 * upstreams and written to both, streamed and not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanonicalRequest, CanonicalResponse, StreamEvent } from '../../../gateway/core/canonical.js';
import { uncarriedStateNotes } from '../../../gateway/core/shaping.js';
import { readSse, type SseEvent } from '../../../gateway/core/sse.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/openai-responses/decode.js';
import { encodeResponse } from '../../../gateway/wire/openai-responses/encode.js';
import { encodeStream } from '../../../gateway/wire/openai-responses/encode-stream.js';
import { fromResponse } from '../../../gateway/wire/openai-responses/from-response.js';
import { fromStream } from '../../../gateway/wire/openai-responses/from-stream.js';
import { toRequest } from '../../../gateway/wire/openai-responses/to-request.js';

const ctx = { requestedModel: 'gpt-5.5', requestId: 'req_1' };

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}
async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const history = [
  { role: 'user', content: 'q' },
  { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAcmp' },
  { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'looking' }] },
  { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
  { type: 'message', role: 'assistant', phase: 'final_answer', content: [{ type: 'output_text', text: 'done' }] },
  { type: 'compaction_summary', encrypted_content: 'gAAAAold' },
  { role: 'user', content: 'next' },
];

test('decode: phase on the text, compaction (and its older name) as blocks, context_management kept for its family', () => {
  const req = decodeRequest({
    model: 'gpt-5.5',
    input: history,
    context_management: [{ type: 'compaction', compact_threshold: 200000 }],
  });
  assert.deepEqual(req.messages[1]!.content, [
    { type: 'compaction', data: 'gAAAAcmp', id: 'cmp_1', family: 'openai' },
    { type: 'text', text: 'looking', phase: 'commentary' },
    { type: 'tool_call', id: 'call_1', name: 'f', input: {} },
  ]);
  assert.deepEqual(req.messages[3]!.content, [
    { type: 'text', text: 'done', phase: 'final_answer' },
    { type: 'compaction', data: 'gAAAAold', family: 'openai' },
  ]);
  assert.deepEqual(req.contextManagement, {
    family: 'openai',
    value: [{ type: 'compaction', compact_threshold: 200000 }],
  });
  assert.equal(decodeRequest({ model: 'm', input: 'x', context_management: [] }).contextManagement, undefined);
});

test('toRequest: a message per phase, compaction items in place, context_management sent on', () => {
  const req = decodeRequest({
    model: 'gpt-5.5',
    input: history,
    context_management: [{ type: 'compaction', compact_threshold: 1000 }],
  });
  const body = toRequest(req).body;
  assert.deepEqual(body.input.slice(1, 4), [
    { type: 'compaction', encrypted_content: 'gAAAAcmp' },
    { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'looking' }] },
    { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
  ]);
  assert.deepEqual(body.input.slice(5, 7), [
    { type: 'message', role: 'assistant', phase: 'final_answer', content: [{ type: 'output_text', text: 'done' }] },
    { type: 'compaction', encrypted_content: 'gAAAAold' },
  ]);
  assert.deepEqual(body.context_management, [{ type: 'compaction', compact_threshold: 1000 }]);
  const twoPhases: CanonicalRequest = {
    ...req,
    messages: [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a', phase: 'commentary' },
          { type: 'text', text: 'b', phase: 'final_answer' },
          { type: 'text', text: 'c', phase: 'final_answer' },
        ],
      },
    ],
  };
  assert.deepEqual(
    toRequest(twoPhases).body.input.map((i) =>
      i.type === 'message' && i.role === 'assistant' ? [i.phase, i.content.length] : i.type,
    ),
    [
      ['commentary', 1],
      ['final_answer', 2],
    ],
  );
});

test("fromResponse: an upstream's phase and compaction items", () => {
  const res = fromResponse({
    id: 'resp_1',
    status: 'completed',
    output: [
      { type: 'compaction', id: 'cmp_9', encrypted_content: 'gAAAAnew' },
      { type: 'message', phase: 'final_answer', content: [{ type: 'output_text', text: 'hi' }] },
    ],
    usage: { input_tokens: 1, output_tokens: 1 },
  });
  assert.deepEqual(res.content, [
    { type: 'compaction', data: 'gAAAAnew', id: 'cmp_9', family: 'openai' },
    { type: 'text', text: 'hi', phase: 'final_answer' },
  ]);
});

test("fromStream: phase from the message's output_item.added, compaction as an event of its own", async () => {
  const ev = (type: string, data: Record<string, unknown>): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...data }),
  });
  const events = await all(
    fromStream(
      from([
        ev('response.created', { response: { id: 'r' } }),
        ev('response.output_item.added', { output_index: 0, item: { type: 'compaction', id: 'cmp_2' } }),
        ev('response.output_item.done', {
          output_index: 0,
          item: { type: 'compaction', id: 'cmp_2', encrypted_content: 'gAAAAstream' },
        }),
        ev('response.output_item.added', { output_index: 1, item: { type: 'message', phase: 'commentary' } }),
        ev('response.content_part.added', { output_index: 1, part: { type: 'output_text', text: '' } }),
        ev('response.output_text.delta', { output_index: 1, delta: 'hm' }),
        ev('response.content_part.done', { output_index: 1, part: { type: 'output_text', text: 'hm' } }),
        ev('response.output_item.done', { output_index: 1, item: { type: 'message', phase: 'commentary' } }),
        ev('response.completed', { response: { status: 'completed', usage: { input_tokens: 1, output_tokens: 1 } } }),
      ]),
      emptyUsage(),
    ),
  );
  assert.deepEqual(
    events.filter((e) => e.type === 'compaction' || e.type === 'block_start'),
    [
      { type: 'compaction', data: 'gAAAAstream', id: 'cmp_2' },
      { type: 'block_start', index: 0, block: { type: 'text', phase: 'commentary' } },
    ],
  );
});

const answer: CanonicalResponse = {
  id: 'x',
  model: 'm',
  content: [
    { type: 'compaction', data: 'gAAAAc', id: 'cmp_up', family: 'openai' },
    { type: 'text', text: 'checking', phase: 'commentary' },
    { type: 'text', text: 'answer', phase: 'final_answer' },
    { type: 'text', text: 'more', phase: 'final_answer' },
  ],
  stopReason: 'end_turn',
  usage: emptyUsage(),
};

test('encodeResponse: compaction items and one message per phase, for the client', () => {
  const out = encodeResponse(answer, ctx).output;
  assert.deepEqual(out[0], { type: 'compaction', id: 'cmp_up', encrypted_content: 'gAAAAc' });
  assert.deepEqual(
    out.slice(1).map((i) => (i.type === 'message' ? [i.phase, i.content.map((c) => c.text)] : i.type)),
    [
      ['commentary', ['checking']],
      ['final_answer', ['answer', 'more']],
    ],
  );
});

test('encodeStream: the same items in the stream, and in its completed response', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'm', usage: emptyUsage() },
    { type: 'compaction', data: 'gAAAAc' },
    { type: 'block_start', index: 0, block: { type: 'text', phase: 'commentary' } },
    { type: 'text_delta', index: 0, text: 'checking' },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text', phase: 'final_answer' } },
    { type: 'text_delta', index: 1, text: 'answer' },
    { type: 'block_stop', index: 1 },
    { type: 'stop', stopReason: 'end_turn', usage: emptyUsage() },
  ];
  const text = (await all(encodeStream(from(events), ctx))).join('');
  const parsed = (await all(readSse(from([text])))).map((e) => JSON.parse(e.data) as Record<string, any>);
  const added = parsed.filter((e) => e.type === 'response.output_item.added').map((e) => e.item);
  assert.deepEqual(
    added.map((i) => [i.type, i.phase ?? i.encrypted_content]),
    [
      ['compaction', 'gAAAAc'],
      ['message', 'commentary'],
      ['message', 'final_answer'],
    ],
  );
  const completed = parsed.at(-1)!;
  assert.equal(completed.type, 'response.completed');
  assert.deepEqual(
    completed.response.output.map((i: any) => i.phase ?? i.type),
    ['compaction', 'commentary', 'final_answer'],
  );
  assert.deepEqual(
    parsed.map((e) => e.sequence_number),
    parsed.map((_, i) => i),
  );
});

test('uncarriedStateNotes: what a family other than OpenAI is not given, said once each', () => {
  const req = decodeRequest({
    model: 'm',
    input: history,
    context_management: [{ type: 'compaction', compact_threshold: 1 }],
  });
  assert.deepEqual(uncarriedStateNotes(req, 'openai', 'openai-responses'), []);
  assert.deepEqual(uncarriedStateNotes(req, 'gemini', 'gemini'), [
    'gemini: dropped the phase of assistant messages: only OpenAI Responses takes it',
    'gemini: dropped 2 compaction item(s), and with them the history they summarised: only OpenAI Responses can read them',
    "gemini: dropped context_management: it is openai's own, and this upstream is not",
  ]);
  assert.deepEqual(uncarriedStateNotes(decodeRequest({ model: 'm', input: 'x' }), 'anthropic', 'anthropic'), []);
});
